"""Generative models, one file per story (NumPyro; PyMC twins where they help).

Each model is a plain NumPyro function ``model(**data)`` whose observed site has
the same name as its keyword argument (``y=None`` generates). Fit any of them with
:func:`judgebayes.inference.fit`.
"""
