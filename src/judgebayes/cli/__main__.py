"""``python -m judgebayes.cli``: the same as the ``judgebayes`` command."""

from judgebayes.cli import main

raise SystemExit(main())
