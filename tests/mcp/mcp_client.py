#!/usr/bin/env python3
"""A raw-stdio MCP client (Python stdlib) that drives `goblin-workbench mcp` through a session and
checks it: the protocol (initialize, tools/list, tools/call, ping, notifications), paging,
confinement, errors for malformed JSON-RPC, unknown tools and wrong argument types, a client that
disconnects mid-load, and that the numbers equal `report`'s.

    tests/mcp/mcp_client.py --binary build/dev/src/app/goblin-workbench --run resources/example-run \
        --other tests/data/gate/slower

Exit 0 when every check holds; each failure is printed. Registered in ctest as mcp_protocol.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


class Session:
    def __init__(self, binary: str, allow: list[str], export_dir: str | None = None):
        args = [binary, "mcp"] + sum((["--allow", a] for a in allow), [])
        if export_dir:
            args += ["--export-dir", export_dir]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 0
        self.notifications: list[dict] = []

    def send_raw(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 120.0) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise EOFError("the server closed its output")
        return json.loads(line)

    def request(self, method: str, params: dict | None = None, meta: dict | None = None) -> dict:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = dict(params)
        if meta:
            msg.setdefault("params", {})["_meta"] = meta
        self.send_raw(json.dumps(msg).encode())
        while True:
            answer = self.read()
            if "id" in answer and answer["id"] == self.next_id:
                return answer
            self.notifications.append(answer)

    def call(self, tool: str, arguments: dict, meta: dict | None = None) -> dict:
        return self.request("tools/call", {"name": tool, "arguments": arguments}, meta)

    def close(self) -> int:
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -9


def report_of(binary: str, run: str, extra: list[str] | None = None) -> dict:
    out = subprocess.run([binary, "report", run, "--json", "-"] + (extra or []), capture_output=True, check=True)
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--run", required=True, help="a run folder to open")
    parser.add_argument("--other", required=True, help="a second run (compare)")
    args = parser.parse_args()
    run = str(Path(args.run).resolve())
    other = str(Path(args.other).resolve())
    allowed = sorted({str(Path(run).parent), str(Path(other).parent)})
    with tempfile.TemporaryDirectory() as export_dir, tempfile.TemporaryDirectory() as outside:
        s = Session(args.binary, allowed, export_dir)
        init = s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "mcp_client.py", "version": "1"}})
        check(init.get("result", {}).get("protocolVersion") == "2025-06-18", "initialize echoes a known revision")
        check("tools" in init["result"].get("capabilities", {}), "initialize offers tools")
        s.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
        check(s.request("ping").get("result") == {}, "ping")
        tools = {t["name"]: t for t in s.request("tools/list")["result"]["tools"]}
        want = {"open_run", "budget", "steps", "ops", "kernels", "timeline", "advice", "compare", "sweep", "export_trace"}
        check(want <= set(tools), f"tools/list has {sorted(want)}")
        check(all("inputSchema" in t and t["inputSchema"]["type"] == "object" for t in tools.values()),
              "every tool has an object inputSchema")

        opened = s.call("open_run", {"path": run}, meta={"progressToken": "load-1"})
        res = opened.get("result", {})
        check(not res.get("isError") and "run_id" in res.get("structuredContent", {}), "open_run gives a run id")
        run_id = res["structuredContent"]["run_id"]
        check(json.loads(res["content"][0]["text"]) == res["structuredContent"], "text content is the structured content")
        progress = [n for n in s.notifications if n.get("method") == "notifications/progress"]
        check(len(progress) >= 1 and progress[-1]["params"]["progressToken"] == "load-1", "progress notifications on a load")

        report = report_of(args.binary, run)
        budget = s.call("budget", {"run": run_id})["result"]["structuredContent"]
        check(budget["budget"] == report["budget"], "budget equals report's budget")
        check(budget["quantities"] == report["quantities"], "quantities equal report's")
        moved = s.call("budget", {"run": run_id, "gpu_util_below_pct": 60})["result"]["structuredContent"]
        report60 = report_of(args.binary, run, ["--gpu-util-below", "60"])
        check(moved["budget"] == report60["budget"], "budget under a moved threshold equals report --gpu-util-below 60")

        # Paging through ops: the pages put together are the report's ops, sorted by device self time.
        seen, cursor, pages = [], None, 0
        while True:
            a = {"run": run_id, "limit": 7}
            if cursor:
                a["cursor"] = cursor
            page = s.call("ops", a)["result"]["structuredContent"]
            seen += page["ops"]
            pages += 1
            cursor = page.get("nextCursor")
            if not cursor:
                break
        want_ops = sorted(report["ops"], key=lambda o: -o["device_self_s"])
        check(len(seen) == len(report["ops"]) and pages == (len(report["ops"]) + 6) // 7, f"ops paged in {pages} pages")
        check([o["name"] for o in seen] == [o["name"] for o in want_ops] or
              sorted(json.dumps(o, sort_keys=True) for o in seen) == sorted(json.dumps(o, sort_keys=True) for o in report["ops"]),
              "the pages hold the report's ops")
        kern = s.call("kernels", {"run": run_id, "limit": 3, "filter": "gemm"})["result"]["structuredContent"]
        check(all("gemm" in k["name"].lower() for k in kern["kernels"]) and len(kern["kernels"]) <= 3, "kernels filter and limit")
        check(kern["total"] <= report["aggregates"]["distinct_kernel_names"], "kernel total within the report's names")
        steps = s.call("steps", {"run": run_id})["result"]["structuredContent"]
        check(steps["steps"] == report["per_step"], "steps equal the report's per_step")
        tl = s.call("timeline", {"run": run_id, "step": 0})["result"]["structuredContent"]
        check(len(tl["devices"]) >= 1, "timeline of step 0")
        adv = s.call("advice", {"run": run_id})["result"]["structuredContent"]
        check(adv["advice"] == report["advice"], "advice equals report's")
        sw = s.call("sweep", {"run": run_id, "threshold": "gpu-util-below", "from": 0, "to": 100, "by": 25})
        check("points" in sw["result"]["structuredContent"], "sweep gives points")
        cmp_ = s.call("compare", {"baseline": run_id, "other": other, "fail_if": ["data_wait>+10%"]})
        sc = cmp_["result"]["structuredContent"]
        check("delta" in sc and "gate" in sc, "compare gives delta and gate")
        cli = subprocess.run([args.binary, "compare", run, other, "--json", "-"], capture_output=True)
        check(json.loads(cli.stdout)["delta"] == sc["delta"], "compare's delta equals the CLI's")
        exp = s.call("export_trace", {"run": run_id, "step": 0})["result"]
        check(not exp.get("isError") and Path(exp["structuredContent"]["path"]).parent == Path(export_dir).resolve(),
              "export_trace writes into the export folder")

        # Refusals and errors.
        ref = s.call("open_run", {"path": outside})["result"]
        check(ref.get("isError") is True and "outside" in ref["content"][0]["text"], "a path outside --allow is refused")
        link = Path(export_dir) / "escape"
        os.symlink(outside, link)
        ref2 = s.call("open_run", {"path": str(link)})["result"]
        check(ref2.get("isError") is True, "a link out of the allowed folders is refused")
        bad_tool = s.call("no_such_tool", {})
        check(bad_tool.get("error", {}).get("code") == -32602, "unknown tool: -32602")
        bad_type = s.call("budget", {"run": run_id, "gpu_util_below_pct": "sixty"})
        check(bad_type.get("error", {}).get("code") == -32602, "wrong argument type: -32602")
        bad_cursor = s.call("ops", {"run": run_id, "cursor": "banana"})
        check(bad_cursor.get("error", {}).get("code") == -32602, "bad cursor: -32602")
        check(s.request("resources/list").get("error", {}).get("code") == -32601, "unknown method: -32601")
        s.send_raw(b"{not json")
        check(s.read().get("error", {}).get("code") == -32700, "malformed JSON: -32700")
        s.send_raw(b"[1, 2]")
        check(s.read().get("error", {}).get("code") == -32600, "a batch: -32600")
        check(s.request("ping").get("result") == {}, "still answering after the errors")
        check(s.close() == 0, "exits 0 when the client closes its input")

        # A client that disconnects mid-load: the server exits cleanly, soon.
        s2 = Session(args.binary, allowed)
        s2.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})
        s2.send_raw(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                                "params": {"name": "open_run", "arguments": {"path": other}}}).encode())
        start = time.monotonic()
        rc = s2.close()
        check(rc == 0 and time.monotonic() - start < 60, f"disconnect mid-load: exit {rc}")
        # A cancelled request gets no answer and the next one does.
        s3 = Session(args.binary, allowed)
        s3.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})
        s3.send_raw(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                "params": {"name": "open_run", "arguments": {"path": other}}}).encode())
        s3.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}).encode())
        s3.next_id = 7
        answer = s3.request("ping")
        # (A load that finished before the cancellation arrived may still answer id 7, as the
        # protocol allows; the server must go on answering either way.)
        check(answer.get("result") == {}, "answers after a cancellation")
        check(s3.close() == 0, "exits 0 after a cancellation")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
