#!/usr/bin/env python3
"""Checks `parley chat` from the command line.

    cli_chat_check.py PARLEY_PROGRAM

Starts `parley fake-server` with a script, runs `parley chat` against it as a user does
(OpenAI chat completions, the Responses API with --api responses, Anthropic, Gemini, Ollama's
native API and Azure OpenAI wire formats, chosen by --provider or found from the environment;
plain, --stream and --json, a system message, a tool call, a refusal, reasoning), and checks what
it prints and the requests the server saw. Also checks that with nothing
configured the echo model answers and stderr says so, that a failed call exits 1 with the
API's message on stderr and without the API key, and that usage errors exit 2.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from cli_check import TIMEOUT, check, clean_env, failures, report, start_fake_server, stop_fake_server  # noqa: E402


def run(program, args, env):
    return subprocess.run([program, "chat", *args], env=env, capture_output=True, text=True, timeout=TIMEOUT)


def main():
    program = sys.argv[1]
    script = {"steps": [
        {"route": "gemini", "reply": {"text": "Hallo von Gemini"}},
        {"route": "gemini", "reply": {"text": "Gestreamte Worte", "delta_size": 3}},
        {"route": "ollama", "reply": {"text": "Hallo von Ollama"}},
        {"route": "ollama", "reply": {"text": "Gestreamt von Ollama", "delta_size": 3}},
        {"route": "openai", "reply": {"text": "Hello from Azure"}},
        {"route": "openai", "reply": {"text": "Streamed from Azure", "delta_size": 4}},
        {"reply": {"text": "Hello from OpenAI"}},
        {"reply": {"text": "Streamed words arrive in pieces", "delta_size": 3}, "chunk_size": 5},
        {"reply": {"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}]}},
        {"reply": {"text": "Bonjour d'Anthropic"}},
        {"status": 401, "body": "{\"error\": {\"type\": \"invalid_request_error\", \"message\": \"Incorrect API key provided: key-1234567890abcdef\", \"param\": null, \"code\": \"invalid_api_key\"}}"},
        {"reply": {"text": "Counted", "usage": {"prompt": 1200, "completion": 30, "cached": 1024, "reasoning": 12}}},
        {"reply": {"text": "Counted too", "usage": {"prompt": 2510, "completion": 40, "cached": 500, "cache_write": 2000}}},
        {"reply": {"text": "Unpriced", "usage": {"prompt": 5, "completion": 1}}},
    ]}
    with tempfile.TemporaryDirectory() as tmp:
        script_path = os.path.join(tmp, "script.json")
        with open(script_path, "w") as f:
            json.dump(script, f)
        log_path = os.path.join(tmp, "requests.log")
        server, base = start_fake_server(program, script_path, log_path)
        try:
            env = clean_env(OPENAI_API_KEY="key-1234567890abcdef")

            # Gemini first (its steps head the script): --provider gemini with --base-url, then
            # the API chosen and the server found from GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL
            r = run(program, ["--provider", "gemini", "--base-url", base + "/v1beta", "--model", "gemini-2.5-flash", "Hallo"],
                    clean_env(GEMINI_API_KEY="gemini-key-0123456789"))
            check(r.returncode == 0, f"gemini chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Hallo von Gemini\n", f"gemini chat output {r.stdout!r}")
            r = run(program, ["--model", "gemini-2.5-flash", "--stream", "Los"],
                    clean_env(GEMINI_API_KEY="gemini-key-0123456789", GOOGLE_GEMINI_BASE_URL=base))
            check(r.returncode == 0, f"gemini streamed chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Gestreamte Worte\n", f"gemini streamed chat output {r.stdout!r}")

            # Ollama: --provider ollama with --base-url, then the API and the server from OLLAMA_HOST
            r = run(program, ["--provider", "ollama", "--base-url", base, "--model", "llama3.2", "Hallo"], clean_env())
            check(r.returncode == 0 and r.stdout == "Hallo von Ollama\n", f"ollama chat: {r.returncode} {r.stdout!r} {r.stderr!r}")
            r = run(program, ["--model", "llama3.2", "--stream", "Los"], clean_env(OLLAMA_HOST=base))
            check(r.returncode == 0 and r.stdout == "Gestreamt von Ollama\n",
                  f"ollama streamed chat: {r.returncode} {r.stdout!r} {r.stderr!r}")

            # Azure OpenAI from its variables (the endpoint, the key, the API version), then named
            azure_env = clean_env(AZURE_OPENAI_API_KEY="azure-key-0123456789", AZURE_OPENAI_ENDPOINT=base,
                                  OPENAI_API_VERSION="2024-10-21")
            r = run(program, ["--model", "gpt-4o-deploy", "Hi"], azure_env)
            check(r.returncode == 0 and r.stdout == "Hello from Azure\n", f"azure chat: {r.returncode} {r.stdout!r} {r.stderr!r}")
            r = run(program, ["--provider", "azure", "--model", "gpt-4o-deploy", "--stream", "Hi"], azure_env)
            check(r.returncode == 0 and r.stdout == "Streamed from Azure\n",
                  f"azure streamed chat: {r.returncode} {r.stdout!r} {r.stderr!r}")
            r = run(program, ["--provider", "azure", "--model", "gpt-4o-deploy", "Hi"],
                    clean_env(AZURE_OPENAI_API_KEY="azure-key-0123456789", AZURE_OPENAI_ENDPOINT=base))
            check(r.returncode == 1 and "Azure OpenAI needs an API version" in r.stderr
                  and "azure-key-0123456789" not in r.stderr, f"azure without a version: {r.returncode} {r.stderr!r}")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "--system", "Be brief.", "Hi"], env)
            check(r.returncode == 0, f"plain chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Hello from OpenAI\n", f"plain chat output {r.stdout!r}")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "--stream", "Go"], env)
            check(r.returncode == 0, f"streamed chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Streamed words arrive in pieces\n", f"streamed chat output {r.stdout!r}")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "--json", "Weather?"], env)
            check(r.returncode == 0, f"json chat exit {r.returncode}: {r.stderr}")
            try:
                message = json.loads(r.stdout)
                check(message.get("role") == "assistant", f"json role {message!r}")
                calls = message.get("tool_calls") or []
                check(len(calls) == 1 and calls[0]["function"]["name"] == "get_weather"
                      and json.loads(calls[0]["function"]["arguments"]) == {"city": "Oslo"},
                      f"json tool calls {calls!r}")
            except (ValueError, KeyError, TypeError) as error:
                failures.append(f"--json output is not the expected message: {r.stdout!r} ({error})")

            r = run(program, ["--provider", "anthropic", "--base-url", base, "--model", "claude-x", "Salut"],
                    clean_env(ANTHROPIC_API_KEY="ant-key-0123456789"))
            check(r.returncode == 0, f"anthropic chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Bonjour d'Anthropic\n", f"anthropic chat output {r.stdout!r}")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "Hi"], env)
            check(r.returncode == 1, f"failed call exit {r.returncode}")
            check("HTTP 401" in r.stderr and "invalid_api_key" in r.stderr, f"failed call stderr {r.stderr!r}")
            check("key-1234567890abcdef" not in r.stderr + r.stdout, "the API key appears in the output")

            # --usage: the server's counts, priced from a catalog file of the test's own
            models_path = os.path.join(tmp, "models.json")
            with open(models_path, "w") as f:
                json.dump({"read": "2026-01-01", "models": {
                    "m-priced": {"input": 2, "cached_input": 0.5, "output": 8},
                    "claude-priced": {"input": 3, "cached_input": 0.3, "cache_write": 3.75, "output": 15}}}, f)
            r = run(program, ["--base-url", base + "/v1", "--model", "m-priced-1", "--usage", "--models", models_path, "Hi"], env)
            check(r.returncode == 0 and r.stdout == "Counted\n", f"--usage chat: {r.returncode} {r.stdout!r} {r.stderr!r}")
            # (1200 - 1024) * 2 + 1024 * 0.5 + 30 * 8 dollars per million tokens
            expected_cost = ((1200 - 1024) * 2 + 1024 * 0.5 + 30 * 8) / 1e6
            check(r.stderr == "usage: m-priced-1: 1 request, 1,200 input tokens (1,024 cached), 30 output tokens "
                              f"(12 reasoning); ${expected_cost:.6f}\nusage: prices as published on 2026-01-01\n",
                  f"--usage line: {r.stderr!r}")
            r = run(program, ["--provider", "anthropic", "--base-url", base, "--model", "claude-priced", "--usage",
                              "--models", models_path, "Hi"], clean_env(ANTHROPIC_API_KEY="ant-key-0123456789"))
            expected_cost = (10 * 3 + 500 * 0.3 + 2000 * 3.75 + 40 * 15) / 1e6
            check(r.returncode == 0 and r.stderr == "usage: claude-priced: 1 request, 2,510 input tokens (500 cached, 2,000 "
                  f"written to the cache), 40 output tokens; ${expected_cost:.6f}\nusage: prices as published on 2026-01-01\n",
                  f"--usage anthropic: {r.returncode} {r.stderr!r}")
            r = run(program, ["--base-url", base + "/v1", "--model", "nobody-knows", "--usage", "--models", models_path, "Hi"], env)
            check(r.returncode == 0 and "usage: nobody-knows: 1 request, 5 input tokens, 1 output token; no price known\n"
                  in r.stderr, f"--usage unpriced: {r.returncode} {r.stderr!r}")
            bad_models = os.path.join(tmp, "bad-models.json")
            with open(bad_models, "w") as f:
                f.write('{"models": {"x": {"input": "2"}}}')
            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "--usage", "--models", bad_models, "Hi"], env)
            check(r.returncode == 1 and r.stderr == f"error: {bad_models}: /models/x/input: expected a price (a number of "
                  "dollars per million tokens, at least 0), found a string\n", f"bad --models: {r.returncode} {r.stderr!r}")
        finally:
            stop_fake_server(server)
        with open(log_path) as f:
            log = f.read()
        check("m1" in log or "/v1/chat/completions" in log, "the server's log shows no chat request")
        check(log.count("POST /api/chat -> 200") == 2, f"the server's log shows not two Ollama requests: {log!r}")
        check(log.count("POST /openai/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21 -> 200") == 2,
              f"the server's log shows not two Azure requests: {log!r}")

    responses_and_refusals(program)

    r = run(program, ["Echo me"], clean_env())
    check(r.returncode == 0 and r.stdout == "Echo me\n", f"echo fallback: {r.returncode} {r.stdout!r}")
    check("echo" in r.stderr, f"echo fallback says nothing on stderr: {r.stderr!r}")

    r = run(program, ["--provider", "nonsense", "x"], clean_env())
    check(r.returncode == 2, f"bad provider exit {r.returncode}")
    r = run(program, ["--bogus", "x"], clean_env())
    check(r.returncode == 2 and "unknown option --bogus" in r.stderr, f"bad option: {r.returncode} {r.stderr!r}")
    r = run(program, [], clean_env())
    check(r.returncode == 2, f"no prompt exit {r.returncode}")
    r = run(program, ["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "x"], clean_env())
    check(r.returncode == 2 and "no model" in r.stderr, f"no model: {r.returncode} {r.stderr!r}")


def responses_and_refusals(program):
    """`--api responses` (plain, --stream, --json with reasoning, a tool call, the system message as
    `instructions`) and refusals (--json and --stream) against the fake server, with the bodies it
    recorded."""
    refusal = "I can't help with that."
    script = {"steps": [
        {"reply": {"refusal": refusal}},
        {"reply": {"refusal": refusal, "delta_size": 4}},
        {"reply": {"text": "Hello from Responses"}},
        {"reply": {"text": "Responses stream in pieces", "delta_size": 4}},
        {"reply": {"text": "It is 42.", "reasoning": "Six times seven.",
                   "usage": {"prompt": 20, "completion": 9, "reasoning": 4}}},
        {"reply": {"tool_calls": [{"id": "call_r", "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}]}},
        {"reply": {"refusal": refusal}},
    ]}
    with tempfile.TemporaryDirectory() as tmp:
        script_path = os.path.join(tmp, "script.json")
        with open(script_path, "w") as f:
            json.dump(script, f)
        log_path = os.path.join(tmp, "requests.log")
        record_path = os.path.join(tmp, "requests.jsonl")
        server, base = start_fake_server(program, script_path, log_path, record_path)
        try:
            env = clean_env(OPENAI_API_KEY="key-1234567890abcdef")
            chat = ["--base-url", base + "/v1", "--model", "m1"]
            responses = ["--api", "responses", "--base-url", base + "/v1", "--model", "gpt-test"]

            # a refusal is on the message: --json prints it, not `"content": null` alone
            r = run(program, [*chat, "--json", "Do the bad thing"], env)
            check(r.returncode == 0, f"refusal --json exit {r.returncode}: {r.stderr}")
            try:
                check(json.loads(r.stdout) == {"role": "assistant", "refusal": refusal}
                      or json.loads(r.stdout) == {"role": "assistant", "content": None, "refusal": refusal},
                      f"refusal --json output {r.stdout!r}")
            except ValueError as error:
                failures.append(f"refusal --json output is not JSON: {r.stdout!r} ({error})")
            r = run(program, [*chat, "--stream", "Do the bad thing"], env)
            check(r.returncode == 0 and r.stdout == f"[refusal] {refusal}\n",
                  f"streamed refusal: {r.returncode} {r.stdout!r} {r.stderr!r}")

            r = run(program, [*responses, "--system", "Be brief.", "Hi"], env)
            check(r.returncode == 0 and r.stdout == "Hello from Responses\n",
                  f"responses chat: {r.returncode} {r.stdout!r} {r.stderr!r}")
            r = run(program, [*responses, "--stream", "Go"], env)
            check(r.returncode == 0 and r.stdout == "Responses stream in pieces\n",
                  f"responses --stream: {r.returncode} {r.stdout!r} {r.stderr!r}")
            r = run(program, [*responses, "--json", "Six times seven?"], env)
            check(r.returncode == 0, f"responses --json exit {r.returncode}: {r.stderr}")
            try:
                message = json.loads(r.stdout)
                check(message.get("role") == "assistant" and message.get("content") == "It is 42.",
                      f"responses --json message {message!r}")
                reasoning = message.get("reasoning") or []
                check(len(reasoning) == 1 and reasoning[0].get("type") == "reasoning"
                      and reasoning[0].get("summary") == ["Six times seven."]
                      and str(reasoning[0].get("id", "")).startswith("rs_"),
                      f"responses --json reasoning {reasoning!r}")
            except (ValueError, AttributeError) as error:
                failures.append(f"responses --json output is not the expected message: {r.stdout!r} ({error})")
            r = run(program, [*responses, "Weather?"], env)
            check(r.returncode == 0 and r.stdout == '[tool call call_r] get_weather{"city":"Oslo"}\n',
                  f"responses tool call: {r.returncode} {r.stdout!r} {r.stderr!r}")
            r = run(program, [*responses, "Do the bad thing"], env)
            check(r.returncode == 0 and r.stdout == f"[refusal] {refusal}\n",
                  f"responses refusal: {r.returncode} {r.stdout!r} {r.stderr!r}")

            # --provider is another name of --api: both given, naming different APIs, is a usage error
            r = run(program, ["--api", "responses", "--provider", "openai", "--model", "m", "x"], env)
            check(r.returncode == 2 and "--api and --provider" in r.stderr, f"--api and --provider: {r.returncode} {r.stderr!r}")
            r = run(program, ["--api", "nonsense", "x"], env)
            check(r.returncode == 2 and "--api must be openai, responses, anthropic, gemini, ollama, azure, azure-responses or "
                  "echo, not 'nonsense'" in r.stderr,
                  f"bad --api: {r.returncode} {r.stderr!r}")
        finally:
            stop_fake_server(server)
        requests = []
        if os.path.exists(record_path):
            with open(record_path) as f:
                requests = [json.loads(line) for line in f if line.strip()]
        targets = [q["target"] for q in requests]
        check(targets == ["/v1/chat/completions"] * 2 + ["/v1/responses"] * 5, f"targets {targets!r}")
        if len(requests) == 7:
            first = json.loads(requests[2]["body"])
            check(first.get("model") == "gpt-test" and first.get("instructions") == "Be brief."
                  and first.get("input") == [{"role": "user", "content": "Hi"}] and "stream" not in first,
                  f"the Responses request body {first!r}")
            streamed = json.loads(requests[3]["body"])
            check(streamed.get("stream") is True, f"the streamed Responses request body {streamed!r}")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    sys.exit(report("cli_chat_check", started))
