#!/usr/bin/env python3
"""Writes the hand-written adversarial inputs tests/data/fuzz-regressions/<parser>/edge-*.

Run once after editing; the files are committed (tests never run this script). Each input
aims at one way a streaming parser goes wrong: empty or header-only files, NUL bytes, bare CR
line ends, unterminated quotes, ragged rows, int64 extremes whose differences and sums
overflow, non-finite numbers, invalid UTF-8 and lone surrogates, 100 000-deep JSON nesting,
and broken gzip members.
"""
import gzip
import pathlib

OUT = pathlib.Path(__file__).resolve().parents[1] / "data" / "fuzz-regressions"

H18 = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
       '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
       '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
V1 = ('"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr",'
      '"accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"')
I64_MIN, I64_MAX = -9223372036854775808, 9223372036854775807


def row(name, start, end, agent="1"):
    return f'"KERNEL_DISPATCH",{agent},1,100,1,5,"{name}",1,{start},{end},0,0,256,1,1,1024,1,1'


def kernel_trace():
    return {
        "edge-empty.csv": b"",
        "edge-bom-only.csv": b"\xef\xbb\xbf",
        "edge-header-only.csv": (H18 + "\n").encode(),
        "edge-unterminated-quote.csv": (H18 + "\n" + '"KERNEL_DISPATCH",1,1,100,1,5,"Cijk_unterminated,1,100,200,0,0\n'
                                        + row("x", 1, 2) + "\n").encode(),
        "edge-nul-bytes.csv": (H18 + "\n").encode()
        + b'"KERNEL_DISPATCH",1,1,100,1,5,"Cijk\x00gemm",1,10\x0020,30,0,0,256,1,1,1024,1,1\n\x00\x00\x00\n',
        # end - start overflows int64, and the durations of one name sum past INT64_MAX
        "edge-int64-extremes.csv": (H18 + "\n" + "\n".join([
            row("Cijk_overflow_a", I64_MIN, I64_MAX),
            row("Cijk_overflow_b", 0, I64_MAX),
            row("Cijk_overflow_b", 1, I64_MAX),
            row("Cijk_overflow_c", I64_MAX, I64_MIN),
            row("Cijk_huge", "1e30", "1e31"),
            row("Cijk_nan", "nan", "inf"),
            row("Cijk_neg_inf", "-inf", "0"),
        ]) + "\n").encode(),
        "edge-bare-cr.csv": (H18 + "\r" + row("Cijk_a", 100, 200) + "\r" + row("Cijk_b", 200, 400) + "\r").encode(),
        # longer than Python's csv.field_size_limit (131072): the reference profile drops the file
        "edge-long-field.csv": (H18 + "\n" + row("K" * 140000, 100, 200) + "\n" + row("Cijk_short", 300, 400)
                                + "\n").encode(),
        "edge-ragged-rows.csv": (H18 + "\n" + '"KERNEL_DISPATCH",1\n' + row("Cijk_a", 1, 2) + ",extra,extra,extra\n"
                                 + ",,,,,,,,,,,,,,,,,\n\n" + row("Cijk_b", 5, 9) + "\n").encode(),
        "edge-v1-negative-duration.csv": (V1 + "\n"
            + '0,"gemm.kd",1,0,0,1,1,1,1,0,0,8,0,16,64,"0x0","0x0",100,200,150,160,-50\n'
            + f'1,"gemm.kd",8,0,0,1,1,1,1,0,0,8,0,16,64,"0x0","0x0",100,200,{I64_MIN},160,{I64_MAX}\n').encode(),
    }


def torch_trace():
    ev = '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":%s,"dur":%s}'
    raw = b'{"traceEvents":[' + b",".join((ev % (i * 100, 50)).encode() for i in range(200)) + b"]}"
    gz = gzip.compress(raw, mtime=0)
    return {
        "edge-empty.json": b"",
        "edge-not-object.json": b'[1, 2, "three", null]\n',
        "edge-scalar.json": b"42",
        "edge-deep-nesting.json": b'{"traceEvents":' + b"[" * 100000 + b"]" * 100000 + b"}",
        "edge-deep-objects.json": b'{"metadata":' + b'{"a":' * 30000 + b"1" + b"}" * 30000 + b"}",
        "edge-extreme-numbers.json": ('{"traceEvents":[' + ",".join([
            ev % ("1e308", "1e308"), ev % ("-1e308", "-1e308"), ev % ("0", "-5"), ev % ('"NaN"', '"Infinity"'),
            ev % ("18446744073709551616", "1"), ev % ("-0", "0"), ev % ("1.7976931348623157e309", "1"),
            '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":1e400}',
        ]) + '],"tokens_per_sec":1e999,"mfu_pct":-1e999,"step_time_seconds":"nan","host_busy_fraction":1e308}').encode(),
        "edge-bad-utf8.json": b'{"traceEvents":[{"ph":"X","cat":"kernel","name":"\xff\xfe\xc3(\xed\xa0\x80gemm","pid":0,'
        b'"tid":7,"ts":1,"dur":2},{"ph":"X","cat":"kernel","name":"\\ud800\\udfff\\ud800x","pid":0,"tid":7,"ts":3,'
        b'"dur":4}],"pytorch_version":"\\u0000"}',
        "edge-duplicate-keys.json": b'{"traceEvents":[],"traceEvents":[{"ph":"X","ph":"M","name":"ProfilerStep#2",'
        b'"name":5,"ts":1,"ts":"x","dur":2}],"metadata":{"step_time_seconds":1},"metadata":"str"}',
        "edge-truncated.json": b'{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"user_annotation","name":'
        b'"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":50},{"ph":"X","cat":"cpu_op","name":"aten::',
        "edge-gzip-truncated.json.gz": gz[: len(gz) // 2],
        "edge-gzip-magic-only.json.gz": b"\x1f\x8b",
        "edge-gzip-bad-crc.json.gz": gz[:-8] + b"\0\0\0\0" + gz[-4:],
        "edge-gzip-trailing-garbage.json.gz": gz + b"garbage after the gzip member",
        # 8 KB that inflates to 8 MB of whitespace
        "edge-gzip-bomb-small.json.gz": gzip.compress(b'{"traceEvents":[' + b" " * (8 << 20) + b"]}", mtime=0),
    }


def amd_smi():
    return {
        "edge-empty.csv": b"",
        "edge-banner-only.csv": b"'CTRL' + 'C' to stop watching output:\r\n\r\n",
        "edge-na-everywhere.csv": b"gpu,gfx_activity,used_vram,total_vram\r\nN/A,N/A,N/A,N/A\r\n0,N/A,N/A,N/A\r\n\n",
        "edge-extreme-values.csv": b"timestamp,gpu,gfx_activity,used_vram,total_vram\r\n1e308,0,1e308,1e308,-1e308\r\n"
        b"-1e308,1,inf,-inf,nan\r\n9223372036854775807,2147483648,-5,99999999999999999999999,0\r\n0,-1,101,1,1\r\n"
        b"0,99999999999,50,1,1\r\n",
        "edge-ragged-rows.csv": b'gpu,gfx_activity,used_vram\r\n0\r\n1,50,100,extra,extra\r\n,,\r\n\r\n2,"unterminated,3\r\n',
        "edge-monitor-units.csv": b"gpu,xcp,power_usage,gfx,mem,vram_used,vram_total\n0,0,750 W,100 %,50 %,191.9 GB,"
        b"192.0 GB\n1,0,N/A,abc %,,12 MB,\n",
        "edge-repeated-headers.csv": b"'CTRL' + 'C' to stop watching output:\r\ntimestamp,gpu,gfx_activity,used_vram\r\n"
        b"1,0,10,100\r\n\ntimestamp,gpu,gfx_activity,used_vram\r\n2,0,20,200\r\n\ntimestamp,gpu,gfx_activity\r\n3,0,30\r\n",
        "edge-nul-bytes.csv": b"gpu,gfx_activity,used_vram\r\n0,5\x000,100\r\n\x00\r\n",
    }


def main():
    for folder, files in (("kerneltrace", kernel_trace()), ("torchtrace", torch_trace()), ("amdsmi", amd_smi())):
        (OUT / folder).mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (OUT / folder / name).write_bytes(data)
    print(f"wrote edge inputs under {OUT}")


if __name__ == "__main__":
    main()
