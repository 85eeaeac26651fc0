import sys

from mcp_server.main import main

sys.exit(main())
