"""`python -m app` is the same as `lathe`."""

import sys

from app.cli import main

sys.exit(main())
