#!/usr/bin/env python3
"""Writes the rocprofv3 `kernel_trace.csv` twin of a rocprofv3 JSON (`--output-format json`,
plain or .gz): one row per buffer_records.kernel_dispatch record, in file order, with the columns
and cell forms rocprofv3's CSV writer uses (rocprofiler-sdk source/lib/output/generateCSV.cpp):
Kernel_Name = the symbol's formatted_kernel_name (or the --kernel-rename name), Agent_Id =
"Agent <logical_node_id>" (the default agent index), every cell quoted. Used to check that the
workbench reads the same kernels from a JSON as from its CSV (tests/parsers/kernels/tst_rocprofjson).

Usage: rocprof_json_to_csv.py IN.json[.gz] OUT_kernel_trace.csv
"""
import csv
import gzip
import json
import sys

COLUMNS = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
           "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
           "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
           "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
LDS_BLOCK = 128  # bytes: the writer rounds group_segment_size up to it


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    doc = load(argv[1])
    with open(argv[2], "w", newline="") as out:
        w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(COLUMNS)
        for proc in doc["rocprofiler-sdk-tool"]:
            symbols = {s["kernel_id"]: s for s in proc.get("kernel_symbols", [])}
            renamed = {e["key"]: e["value"]
                       for e in proc.get("strings", {}).get("correlation_id", {}).get("external", [])}
            kinds = proc.get("strings", {}).get("buffer_records", [])
            agents = {a["id"]["handle"]: a for a in proc.get("agents", [])}
            for d in proc.get("buffer_records", {}).get("kernel_dispatch", []):
                info = d["dispatch_info"]
                sym = symbols[info["kernel_id"]]
                ext = d.get("correlation_id", {}).get("external", 0)
                name = renamed.get(ext, sym["formatted_kernel_name"]) if ext else sym["formatted_kernel_name"]
                kind = kinds[d["kind"]]["kind"] if d.get("kind", -1) < len(kinds) else "KERNEL_DISPATCH"
                lds = (sym.get("group_segment_size", 0) + LDS_BLOCK - 1) & ~(LDS_BLOCK - 1)
                wg, grid = info.get("workgroup_size", {}), info.get("grid_size", {})
                w.writerow([kind, "Agent %d" % agents[info["agent_id"]["handle"]]["logical_node_id"],
                            info.get("queue_id", {}).get("handle", 0), d.get("stream_id", {}).get("handle", 0),
                            d.get("thread_id", 0), info.get("dispatch_id", 0), info["kernel_id"], name,
                            d.get("correlation_id", {}).get("internal", 0), d["start_timestamp"], d["end_timestamp"],
                            lds, info.get("private_segment_size", 0), sym.get("arch_vgpr_count", 0),
                            sym.get("accum_vgpr_count", 0), sym.get("sgpr_count", 0), wg.get("x", 0), wg.get("y", 0),
                            wg.get("z", 0), grid.get("x", 0), grid.get("y", 0), grid.get("z", 0)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
