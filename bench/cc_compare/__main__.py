import sys

from bench.cc_compare.run import main

sys.exit(main())
