# Small hand-written telemetry files for the workbench reading; the expected values in
# tests/parsers/amdsmi/tst_amdsmiparser.cpp are computed by hand in the comments there. Run: python3 make_cases.py
import os
out = os.path.dirname(os.path.abspath(__file__))
CRLF = '\r\n'
def write(name, text):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(text.encode('utf-8') if isinstance(text, str) else text)

# amd-smi metric -u -p -m --csv polled: header + row + blank line per sample, CRLF rows.
metric_header = 'gpu,gfx_activity,umc_activity,mm_activity,vcn_activity,socket_power,total_vram,used_vram,used_visible_vram,used_gtt'
def metric_block(util, used):
    return (metric_header + CRLF + '0,%s,0,N/A,"[\'N/A\', \'N/A\', \'N/A\', \'N/A\']",%d,196592,%s,%s,17' % (util, 140 + 5 * int(util), used, used) + CRLF + '\n')
utils = [0, 1, 50, 80, 3, 90, 1, 0]
used = [285, 1024, 102400, 153600, 140000, 145000, 120000, 285]
write('metric_window.csv', ''.join(metric_block(u, v) for u, v in zip(utils, used)))

# amd-smi monitor -w 1 --csv (ROCm 7 default view, GB) to stdout, 2 GPUs, N/A cells.
mon_header = 'timestamp,gpu,xcp,power_usage,hotspot_temperature,memory_temperature,gfx_clk,gfx,mem,encoder,decoder,vram_used,vram_total'
rows = [[(0, '0', '0.3'), (1, '1', '0.3')],
        [(0, '60', '100.5'), (1, 'N/A', '99.5')],
        [(0, '70', '120.0'), (1, '40', 'N/A')],
        [(0, '2', '90.0'), (1, '2', '80.0')]]
text = "'CTRL' + 'C' to stop watching output:\n"
for i, block in enumerate(rows):
    text += mon_header + CRLF
    for gpu, util, vram in block:
        text += '%d,%d,0,%d,40,35,%d,%s,0,N/A,0,%s,192.0' % (1700000000 + i, gpu, 300 if util not in ('0', '1', '2') else 150,
                                                             1300 if util not in ('0', '1', '2') else 2100, util, vram) + CRLF
    text += '\n'
write('monitor_watch_gb_2gpu.csv', text)

# amd-smi monitor --csv on ROCm 6 (MB), LF only, no banner, one GPU.
mon6 = 'gpu,power_usage,hotspot_temperature,memory_temperature,gfx,gfx_clock,mem,mem_clock,encoder,encoder_clock,decoder,decoder_clock,single_bit_ecc,double_bit_ecc,pcie_replay,vram_used,vram_total,pcie_bw'
text = ''
for util, vram in [(30, 51200), (60, 102400), (90, 153600)]:
    text += mon6 + '\n' + '0,%d,50,40,%d,1500,10,1300,N/A,N/A,0,N/A,0,0,0,%d,196592,100' % (200 + util, util, vram) + '\n\n'
write('monitor_rocm6_mb.csv', text)

# ROCm 7 monitor without a total column: the unit comes from the dialect (default view = GB).
write('monitor_rocm7_no_total.csv', 'gpu,xcp,gfx_clk,gfx,vram_used\n0,0,1300,40,100.5\n0,0,1300,60,110.5\n')

# metric without a total column: used_vram is MB by dialect.
write('metric_no_total.csv', 'gpu,gfx_activity,used_vram\n0,40,102400\n0,60,112640\n')

# A GB name holding MB values and no total: no GPU has 4 TB, so the values are MB.
write('gb_name_mb_values.csv', 'gpu,gfx_activity,VRAM_USED_GB\n0,40,150000\n0,60,153600\n')

# rocm-smi --showuse --showmeminfo vram --csv: bytes, card names.
write('rocm_smi.csv', 'device,GPU use (%),VRAM Total Memory (B),VRAM Total Used Memory (B)\n'
      'card0,35,206141652992,1073741824\ncard1,45,206141652992,2147483648\n'
      'card0,55,206141652992,3221225472\ncard1,65,206141652992,4294967296\n')

# nvidia-smi --query-gpu=... --format=csv -lms 500: ", " separators, units in values, [N/A].
write('nvidia_smi.csv', 'timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n'
      '2024/01/02 12:00:00.000, 0, NVIDIA A100-SXM4-40GB, 0 %, 1024 MiB, 40960 MiB\n'
      '2024/01/02 12:00:00.500, 0, NVIDIA A100-SXM4-40GB, 50 %, 2048 MiB, 40960 MiB\n'
      '2024/01/02 12:00:01.000, 0, NVIDIA A100-SXM4-40GB, 70 %, [N/A], 40960 MiB\n'
      '2024/01/02 12:00:01.500, 0, NVIDIA A100-SXM4-40GB, 3 %, 1024 MiB, 40960 MiB\n')

# Collapsed usage group (utilisation read failed): only `usage`, which is never utilisation.
write('usage_only.csv', 'gpu,usage,socket_power,total_vram,used_vram\r\n0,N/A,300,196592,102400\r\n\n'
      'gpu,usage,socket_power,total_vram,used_vram\r\n0,N/A,310,196592,104448\r\n\n')

# A full metric with the fan group: fan `usage` (N/A) next to gfx_activity.
write('fan_usage_full_metric.csv', 'gpu,gfx_activity,umc_activity,socket_power,edge,hotspot,mem,speed,max,rpm,usage,total_vram,used_vram\r\n'
      '0,20,5,200,40,45,50,N/A,N/A,N/A,N/A,196592,51200\r\n0,40,5,250,40,45,50,N/A,N/A,N/A,N/A,196592,61440\r\n')

# Broken rows: a GPU index N/A, a word, a non-finite VRAM, a short row cut by a killed process.
write('bad_rows.csv', 'gpu,gfx_activity,total_vram,used_vram\n0,40,196592,10240\nN/A,50,196592,10240\n'
      '0,abc,196592,20480\n0,60,196592,inf\n0,80,196592,30720\n0,9')

# Utilisation mostly N/A (3 of 4).
write('mostly_na.csv', 'gpu,gfx_activity,total_vram,used_vram\n0,N/A,196592,1024\n0,N/A,196592,2048\n0,50,196592,3072\n0,N/A,196592,4096\n')

# A different header in the middle (another command appended): its rows are skipped.
write('foreign_header.csv', 'gpu,gfx_activity,used_vram\n0,40,10240\n'
      'gpu,xcp,power_usage,gfx,vram_used,vram_total\n0,0,300,99,150.0,192.0\n'
      'gpu,gfx_activity,used_vram\n0,60,20480\n')

# Rocm version column (amd-smi version --csv joined in by a script) with a leading blank value.
write('rocm_version.csv', 'gpu,gfx_activity,used_vram,rocm_version\n0,40,10240,N/A\n0,60,20480,6.4.1\n')

# A quote that is never closed swallows the rest of the file into one field.
write('unclosed_quote.csv', 'gpu,gfx_activity,used_vram\n0,"50,1024\n0,60,2048\n')

write('empty.csv', b'')
write('header_only.csv', metric_header + CRLF + '\n')
write('banner_only.csv', "'CTRL' + 'C' to stop watching output:\n")
