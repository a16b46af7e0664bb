"""A function of tests/bot/cli_run/assistant.yaml: reads the call's arguments (JSON) from standard
input and writes the order's state (JSON) to standard output."""
import json
import os
import sys

arguments = json.load(sys.stdin)
json.dump({"order": arguments["order"], "state": "shipped",
           "function": os.environ.get("PARLEY_FUNCTION"),
           "directory": os.path.basename(os.getcwd())}, sys.stdout)
print()
