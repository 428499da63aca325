// The MCP server driven by the official TypeScript SDK's client (@modelcontextprotocol/sdk), run
// with Node.js: lists the tools, opens the example and a real trace, pages through ops, runs a
// compare and a sweep, is refused a path outside --allow, and checks the numbers against `report`.
//   node tests/mcp/sdk_client.mjs --binary BIN --sdk DIR --run RUN --other RUN
// DIR holds node_modules/@modelcontextprotocol/sdk (npm install --prefix DIR @modelcontextprotocol/sdk).
// Exits 77 (ctest: skipped) when the SDK is not there, saying how to get it.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) =>
  (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
args.sdk = args.sdk || process.env.GOBLIN_MCP_SDK_DIR;
const sdkRoot = path.join(args.sdk ?? "", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");
if (!args.sdk || !existsSync(path.join(sdkRoot, "client", "index.js"))) {
  console.log(`SKIP: the MCP TypeScript SDK is not in '${args.sdk}': npm install --prefix DIR @modelcontextprotocol/sdk, ` +
              "then set GOBLIN_MCP_SDK_DIR=DIR (the Python client, ctest mcp_protocol, covers the protocol meanwhile)");
  process.exit(77);
}
const { Client } = await import(pathToFileURL(path.join(sdkRoot, "client", "index.js")).href);
const { StdioClientTransport } = await import(pathToFileURL(path.join(sdkRoot, "client", "stdio.js")).href);

let failures = 0;
const check = (ok, what) => { console.log(`${ok ? "PASS" : "FAIL"} ${what}`); if (!ok) failures++; };
const report = (run, extra = []) => JSON.parse(execFileSync(args.binary, ["report", run, "--json", "-", ...extra],
                                                            { maxBuffer: 1 << 28 }).toString());
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const run = path.resolve(args.run), other = path.resolve(args.other);
const outside = mkdtempSync(path.join(tmpdir(), "goblin-mcp-outside-"));
const transport = new StdioClientTransport({
  command: args.binary,
  args: ["mcp", "--allow", path.dirname(run), "--allow", path.dirname(other)],
  stderr: "inherit",
});
const client = new Client({ name: "goblin-workbench-sdk-test", version: "1.0.0" });
await client.connect(transport);
check(client.getServerVersion()?.name === "goblin-workbench", "initialize through the SDK");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
for (const t of ["open_run", "budget", "steps", "ops", "kernels", "timeline", "advice", "compare", "sweep"])
  check(names.includes(t), `tools/list has ${t}`);

const call = async (name, a) => (await client.callTool({ name, arguments: a })).structuredContent;
const opened = await call("open_run", { path: run });
check(typeof opened.run_id === "string", "open_run gives a run id");
const r = report(run);
check(same((await call("budget", { run: opened.run_id })).budget, r.budget), "budget equals report's");
const otherOpened = await call("open_run", { path: other });
check(typeof otherOpened.run_id === "string" && otherOpened.run_id !== opened.run_id, "a second run opens");
check(same((await call("budget", { run: otherOpened.run_id })).quantities, report(other).quantities),
      "the second run's quantities equal report's");

let seen = [], cursor;
do {
  const page = await call("ops", { run: opened.run_id, limit: 10, ...(cursor ? { cursor } : {}) });
  seen = seen.concat(page.ops);
  cursor = page.nextCursor;
} while (cursor);
check(seen.length === r.ops.length, `ops paged: ${seen.length} of ${r.ops.length}`);

const cmp = await call("compare", { baseline: opened.run_id, other: otherOpened.run_id });
const cli = JSON.parse(execFileSync(args.binary, ["compare", run, other, "--json", "-"], { maxBuffer: 1 << 28 }).toString());
check(same(cmp.delta, cli.delta), "compare's delta equals the CLI's");
const sweep = await call("sweep", { run: opened.run_id, threshold: "gpu-util-below", from: 0, to: 100, by: 10 });
check(Array.isArray(sweep.points) && sweep.points.length >= 11, "sweep gives points");

const refused = await client.callTool({ name: "open_run", arguments: { path: outside } });
check(refused.isError === true, "a path outside --allow is refused");
let rejected = false;
try { await client.callTool({ name: "budget", arguments: { run: opened.run_id, gpu_util_below_pct: "high" } }); }
catch { rejected = true; }
check(rejected, "a wrongly typed argument is an error");

await client.close();
console.log(`${failures} failure(s)`);
process.exit(failures ? 1 : 0);
