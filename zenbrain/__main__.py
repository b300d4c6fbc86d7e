"""``python -m zenbrain``: the command-line tool."""

import sys

from zenbrain.cli import main

sys.exit(main())
