"""The Bayesian engine's machinery: private, with no public names (``__all__`` is empty).

The public Bayesian API (:func:`judgebayes.fit`, the predictive checks, SBC,
leave-one-battle-out, ``fit_calibration``) is written on the engine's modules, and
nothing else of judgebayes imports them. Layers, each importing only those below it::

    judgebayes.bayes.inference  .predictive  .sbc  .battle_loo   judgebayes.calibration
              │                     │          │        │                │
    ──────────┼─────────────────────┼──────────┼────────┼────────────────┼──── engine
              ▼                     ▼          ▼        ▼                ▼
    laplace   MAP (L-BFGS) and the Laplace approximation; central Hessian
    predict   NumPyro's Predictive, one compiled program per data set
    model     CompiledModel: a model bound to its layout; NUTS, log-likelihood,
              observed values, MAP potential, SBC's batched chains
    nuts      the chunked NUTS driver and the chain threads (NumPyro's hmc_util)
    sites     site discovery: latent, deterministic and data sites, their shapes
    xla       every JAX/XLA setting: compiler options, quick level, the persistent
              compilation cache (size cap, how to clear it)
    cache     the one cache (LRU, one lock policy)
    keys      Layout.of(model, data); NEEDS_CONCRETE, the one "reads its data" check

Each module lists the names the layers above it use in its own ``__all__``; no private
name (``_x``) crosses a module boundary.
"""

__all__: list[str] = []
