"""``python -m tute_play``: the play command line (:mod:`tute_play.cli`)."""

import sys

from .cli import main

sys.exit(main())
