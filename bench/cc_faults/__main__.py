import sys

from bench.cc_faults.run import main

sys.exit(main(sys.argv[1:]))
