"""python -m umpire: the same as the umpire console script."""

import sys

from umpire.cli import main

sys.exit(main())
