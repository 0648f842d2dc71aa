import sys

from docchat.cli import main

sys.exit(main())
