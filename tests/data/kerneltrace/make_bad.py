#!/usr/bin/env python3
"""Writes the hand-made kernel-trace fixtures (bad inputs, odd dialects, the multi-process
folder). Run by make_fixtures.sh; deterministic."""

import csv
import io
import random
import sys
from pathlib import Path

here = Path(sys.argv[1])
shared = Path(sys.argv[2])
bad = here / "bad"
runs = here / "runs"

V3_63 = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
         '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
         '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
V1 = ('"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr",'
      '"accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"')


def v3row(agent, dispatch, name_field, start, end):
    """One ROCm 6.3 row; name_field is written as given (already quoted or not)."""
    return (f'"KERNEL_DISPATCH",{agent},1,77,{dispatch},9,{name_field},{dispatch + 100},{start},{end},'
            '0,0,256,1,1,65536,1,1')


def v1row(index, name, begin, end, duration):
    return (f'{index},"{name}",2,0,{index},1234,1234,65536,256,0,0,16,0,32,64,"0x0","0x7f00",'
            f'{begin},{begin},{end},{end},{duration}')


def write(path, text, newline="\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.replace("\n", newline).encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(data)


write(bad / "empty.csv", b"")
write(bad / "header_only.csv", V3_63 + "\n")
write(bad / "garbage.bin", random.Random(42).randbytes(4096))

# A name with bytes that are not UTF-8 in the middle of an otherwise fine 6.3 trace.
rows = [V3_63,
        v3row(4, 1, '"gemm_kernel_a"', 1000, 2000),
        v3row(4, 2, '"gemm_kernel_b"', 2100, 2600),
        v3row(4, 3, '"gemm_kernel_c"', 2700, 3000)]
text = "\n".join(rows) + "\n"
write(bad / "non_utf8_name.csv", text.encode().replace(b"gemm_kernel_b", b"gemm_\xff\xfe_kernel_b"))

# rocprof v1 trace mode with every kind of odd timing cell.
rows = [V1,
        v1row(0, "kern_ok.kd", 1000, 1500, 500),                  # A: both use 500
        v1row(1, "kern_negative.kd", 2000, 1900, -100),           # B: negative, skipped by both
        v1row(2, "kern_nan.kd", "nan", "nan", "nan"),              # C: NaN
        v1row(3, "kern_empty_duration.kd", 3000, 3700, ""),       # D: reference falls back to End-Begin
        v1row(4, "kern_fraction.kd", 4000, 4600, "600.9"),        # E: int(600.9) = 600
        v1row(5, "kern_underscore.kd", "5_000", "5_800", ""),     # F: Python float accepts 5_800
        v1row(6, "kern_spaces.kd", " 6000", "6900 ", ""),         # G: surrounding spaces
        v1row(7, "   ", 6950, 6990, 40),                           # H: blank name
        v1row(8, "kern_zero.kd", 7000, 7000, 0),                  # I: zero
        v1row(9, "kern_garbage.kd", 8000, "abc", "abc"),          # J: not a number
        v1row(10, "kern_exponent.kd", "1e3", "2.5e3", ""),        # K: scientific notation
        v1row(11, "kern_ok.kd", 9000, 9250, 250)]                 # L: second call of A's name
write(bad / "nan_negative_v1.csv", "\n".join(rows) + "\n")

# An infinite duration: the reference's int(float('inf')) raises OverflowError (not caught).
rows = [V1,
        v1row(0, "kern_a.kd", 1000, 1500, 500),
        v1row(1, "kern_b.kd", 2000, 2300, 300),
        v1row(2, "kern_c.kd", 3000, 3100, "inf"),
        v1row(3, "kern_a.kd", 4000, 4400, 400)]
write(bad / "inf_duration.csv", "\n".join(rows) + "\n")

# rocprofv3 does not escape quotes inside names: `foo"bar` is written "foo"bar"; `a",b` adds a field.
rows = [V3_63,
        v3row(4, 1, '"plain_kernel"', 1000, 1500),
        v3row(4, 2, '"kernel<"quoted">"', 2000, 2400),
        v3row(4, 3, '"split",name"', 3000, 3900),
        v3row(4, 4, '"plain_kernel"', 4000, 4100)]
write(bad / "quote_quirk.csv", "\n".join(rows) + "\n")

# UTF-8 BOM before an unquoted header whose first column is KernelName: the reference keeps the
# BOM in the name, misses KernelName at tier 1 and takes the later "Name" column instead.
text = ("\ufeffKernelName,Name,BeginNs,EndNs\n"
        "gemm_bf16,agent-a,100,400\n"
        "attn_fwd,agent-a,500,900\n"
        "gemm_bf16,agent-b,1000,1200\n")
write(bad / "bom_kernelname.csv", text)

# Bare CR line ends (old Mac style) and a quoted name with an embedded CRLF.
rows = [V3_63,
        v3row(4, 1, '"kernel_one"', 1000, 1600),
        v3row(4, 2, '"kernel\r\ntwo"', 2000, 2500),
        v3row(4, 3, '"kernel_one"', 3000, 3100)]
write(bad / "bare_cr.csv", ("\r".join(rows) + "\r").encode())

# A blank first line: Python's DictReader takes [] as the header and reads nothing.
rows = [V3_63, v3row(4, 1, '"kernel_one"', 1000, 1600), v3row(4, 2, '"kernel_two"', 2000, 2500)]
write(bad / "leading_blank_line.csv", "\n" + "\n".join(rows) + "\n")

# Rows shorter than the header: one ends after End_Timestamp (usable), one before it.
rows = [V3_63,
        v3row(4, 1, '"kernel_one"', 1000, 1600),
        '"KERNEL_DISPATCH",4,1,77,2,9,"kernel_two",102,2000,2700',
        '"KERNEL_DISPATCH",4,1,77,3,9,"kernel_three",103,3000',
        v3row(4, 4, '"kernel_one"', 4000, 4200)]
write(bad / "short_rows.csv", "\n".join(rows) + "\n")

# Lookalikes without a public sample: agent_info (columns from FORMATS.md 1.5, shortened).
text = ('"Node_Id","Logical_Node_Id","Agent_Type","Cpu_Cores_Count","Simd_Count","Gpu_Id","Name",'
        '"Vendor_Name","Product_Name","Model_Name"\n'
        '0,0,"CPU",64,0,0,"AMD EPYC 9654 96-Core Processor","CPU","AMD EPYC 9654 96-Core Processor",""\n'
        '2,1,"GPU",0,1216,45412,"gfx942","AMD","AMD Instinct MI300X","ip discovery"\n')
write(bad / "agent_info.csv", text)

# rocprof v1 counter mode: unquoted header, KernelName but no timing columns.
text = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
        "wave_size,sig,obj,SQ_WAVES,SQ_INSTS_VALU\n"
        '0,"vecAdd(float*, float*, float*, int) [clone .kd]",2,0,0,4242,4242,1048576,256,0,0,8,0,16,64,'
        "0x0,0x7f5a,4096,65536\n"
        '1,"vecAdd(float*, float*, float*, int) [clone .kd]",2,0,1,4242,4242,1048576,256,0,0,8,0,16,64,'
        "0x0,0x7f5a,4096,65536\n")
write(bad / "v1_counter_mode.csv", text)

# nsys stats --report cuda_gpu_trace (header from FORMATS.md 5.1), kernels and memcpy rows.
NSYS = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
        "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name")
rows = [NSYS,
        '512000,3200,101,,,,,,,,,,4.194,1310.720,Pageable,Device,NVIDIA RTX A4500 (0),1,,7,[CUDA memcpy Host-to-Device]',
        '530000,15000,105,256,1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA RTX A4500 (0),1,,7,'
        '"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>>(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"',
        '560000,42000,109,128,4,1,128,1,1,128,0.016,0.000,,,,,NVIDIA RTX A4500 (0),1,,7,ampere_sgemm_128x64_nn',
        '610000,900,113,,,,,,,,,,0.000,0.000,,Device,NVIDIA RTX A4500 (0),1,,7,[CUDA memset]',
        '620000,41000,117,128,4,1,128,1,1,128,0.016,0.000,,,,,NVIDIA RTX A4500 (0),1,,7,ampere_sgemm_128x64_nn']
write(bad / "nsys_cuda_gpu_trace.csv", "\n".join(rows) + "\n")
write(bad / "nsys_notice_preamble.csv",
      "NOTICE: Existing SQLite export found: report1.sqlite\n"
      "Processing [report1.sqlite] with [/opt/nvidia/nsys/reports/cuda_gpu_trace.py]... \n"
      "\n" + "\n".join(rows) + "\n")

# Multi-process folder as rocprofv3 >= 6.3 lays it out: <hostname>/<pid>_kernel_trace.csv.
# node01 holds two processes (one GPU each); node02 is another machine whose process reports
# the same agent label as node01's first process.
src = (here / "gen" / "v3-rocm7.csv").read_text()
reader = list(csv.reader(io.StringIO(src)))
header, body = reader[0], reader[1:]


def dump(rows_):
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(header)
    for r in rows_:
        w.writerow([int(x) if x.lstrip("-").isdigit() else x for x in r])
    return out.getvalue()


agent_col = header.index("Agent_Id")
first = [r for i, r in enumerate(body) if i % 2 == 0]
second = [list(r) for i, r in enumerate(body) if i % 2 == 1]
for r in second:
    r[agent_col] = "Agent 3"
write(runs / "multiprocess" / "node01" / "123_kernel_trace.csv", dump(first))
write(runs / "multiprocess" / "node01" / "456_kernel_trace.csv", dump(second))
write(runs / "multiprocess" / "node02" / "789_kernel_trace.csv", dump(first[:3]))
write(runs / "multiprocess" / "node01" / "123_memory_copy_trace.csv",
      (shared / "samples" / "rocprofv3" / "sdk-1.0-docs_memory_copy_trace.csv").read_text())
