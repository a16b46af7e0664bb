#!/usr/bin/env python3
"""A scripted MCP server (stdio) for the fault tests of parley's MCP client.

Reads newline-delimited JSON-RPC from standard input and answers as its tools say:

  echo {text}        a text result
  fail               a result with isError: true
  rpc_error          a JSON-RPC error (-32602, invalid params)
  never              no answer at all (for time limits and cancellation)
  die                writes a line to stderr, then exits with status 3 in the middle of the call
  garbage            writes a line that is not JSON
  huge               writes one line of 10 MB
  ask_ping           sends the client a ping request first; the result holds the client's answer
  ask_sampling       sends the client sampling/createMessage first; the result holds its answer
  progress {steps}   sends `steps` progress notifications, then a text result

tools/list answers in pages of PAGE_SIZE tools (environment, default 3) with nextCursor.
Environment: VERSION, the protocol revision to answer initialize with (default: the client's);
LOG, a file where every message received is written, one JSON line each; CURSOR_LOOP=1 answers
every page with the same cursor.
"""
import json
import os
import sys

TOOLS = ["echo", "fail", "rpc_error", "never", "die", "garbage", "huge", "ask_ping", "ask_sampling", "progress"]
log_path = os.environ.get("LOG")
page_size = int(os.environ.get("PAGE_SIZE", "3"))
waiting = {}  # id of our request to the client -> (the client's request id, tool)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(id_, value):
    send({"jsonrpc": "2.0", "id": id_, "result": value})


def text(id_, t, is_error=False):
    result(id_, {"content": [{"type": "text", "text": t}], "isError": is_error})


def tool_list(cursor):
    start = int(cursor) if cursor and cursor.isdigit() else 0
    page = TOOLS[start:start + page_size]
    out = {"tools": [{"name": n, "description": "the " + n + " tool",
                      "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}} for n in page]}
    if os.environ.get("CURSOR_LOOP") == "1":
        out["nextCursor"] = "again"
    elif start + page_size < len(TOOLS):
        out["nextCursor"] = str(start + page_size)
    return out


def call(id_, name, args):
    if name == "echo":
        text(id_, args.get("text", ""))
    elif name == "fail":
        text(id_, "the tool failed on purpose", True)
    elif name == "rpc_error":
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": "bad arguments for rpc_error"}})
    elif name == "never":
        pass
    elif name == "die":
        sys.stderr.write("scripted server: dying in the middle of a call\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()
    elif name == "huge":
        sys.stdout.write('{"jsonrpc": "2.0", "method": "x", "params": {"pad": "' + "x" * (10 * 1024 * 1024) + '"}}\n')
        sys.stdout.flush()
    elif name == "ask_ping":
        waiting["s1"] = (id_, name)
        send({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
    elif name == "ask_sampling":
        waiting["s2"] = (id_, name)
        send({"jsonrpc": "2.0", "id": "s2", "method": "sampling/createMessage", "params": {"messages": []}})
    elif name == "progress":
        token = args.get("_token")
        for i in range(int(args.get("steps", 3))):
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": i + 1, "total": 3, "message": "step " + str(i + 1)}})
        text(id_, "done")
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": "unknown tool " + name}})


def main():
    log = open(log_path, "a") if log_path else None
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        if log:
            log.write(json.dumps(message) + "\n")
            log.flush()
        method = message.get("method")
        id_ = message.get("id")
        if method is None:  # an answer to one of our requests
            if id_ in waiting:
                client_id, _ = waiting.pop(id_)
                text(client_id, json.dumps({k: v for k, v in message.items() if k != "jsonrpc"}))
            continue
        params = message.get("params") or {}
        if method == "initialize":
            result(id_, {"protocolVersion": os.environ.get("VERSION", params.get("protocolVersion")),
                         "capabilities": {"tools": {"listChanged": True}},
                         "serverInfo": {"name": "scripted", "version": "1.0"}})
        elif method == "tools/list":
            result(id_, tool_list(params.get("cursor")))
        elif method == "tools/call":
            args = dict(params.get("arguments") or {})
            token = (params.get("_meta") or {}).get("progressToken")
            if token is not None:
                args["_token"] = token
            call(id_, params.get("name"), args)
        elif method == "ping":
            result(id_, {})
        elif id_ is not None:
            send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "no method " + method}})


if __name__ == "__main__":
    main()
