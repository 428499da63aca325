# Edge cases for the reference reading of amd_smi.csv (bytes written exactly). Expected values in
# tests/parsers/amdsmi/tst_amdsmiparser.cpp come from the real reference: profile_parser._read_amd_smi(Path(f), []).
# Run: python3 make_cases.py [--all]. The three field-limit cases are over 128 KB each, so they
# are not committed; tst_amdsmiparser.cpp builds the same bytes in a temporary folder (--all
# writes them here too, to compute their expected values).
import os, sys
cases = {}
def put(name, data):
    cases[name] = data.encode('utf-8') if isinstance(data, str) else data

put('bom_header', '\ufeffgpu,used_vram,gfx_activity\r\n0,2048,50\r\n0,4096,70\r\n')
put('non_utf8', b'gpu,used_vram,gfx_activity\n0,2048,50\n0,40\xff96,70\n')
put('surrogate_utf8', b'gpu,used_vram\n0,1024\n0,\xed\xa0\x80\n')
put('bad_continuation_utf8', b'gpu,used_vram\n0,\xf0\x9f\x98x\n')
put('truncated_utf8', b'gpu,used_vram\n0,1024\n0,\xe2\x82')
put('field_limit', 'gpu,rocm_version,used_vram,gfx_activity\n0,6.3.0,1024,40\n0,,2048,"' + 'x'*131073 + '"\n0,,4096,90\n')
put('field_at_limit', 'gpu,rocm_version,used_vram,gfx_activity\n0, 6.3.0 ,1024,40\n0,,2048,"' + 'x'*131072 + '"\n')
put('field_limit_multibyte', 'gpu,used_vram,gfx_activity\n0,1024,40\n0,2048,"' + '\u00e9'*70000 + '"\n')
put('nan_inf', 'gpu,used_vram,gfx_activity\n0,nan,nan\n0,2048,inf\n0,1024,-inf\n0,4096,150\n')
put('nan_first_peak', 'gpu,used_vram,gfx_activity\n0,NaN,10\n0,2048,20\n')
put('units_and_commas', 'gpu,vram_used,Gfx_Activity\n0,"1,024 MB",10\n0, 2GB ,20\n0,1_000,x\n0,\u0661\u0662\u0663,\u2003 5 \u3000\n0,1GMBB,\x1f7\n0,\x1f512,30\n')
put('short_long_rows', 'gpu,used_vram,gfx_activity,rocm_version\n0,1024\n0,2048,30,,extra,extra2\n0,,40\n0,3072,50,  \n0,4096,60,7.0.1\n')
put('duplicate_names', 'gpu,used_vram,gfx_activity,used_vram\n0,100000,10,2048\n0,100000,20\n')
put('multiline_quoted', 'gpu,used_vram,gfx_activity,note\n0,2048,10,"first\n\ngpu,used_vram,gfx_activity,note\nend"\n0,3072,20,x\n')
put('odd_line_breaks', 'gpu,used_vram,gfx_activity\v0,1024,10\f0,2048,20\x1c0,3072\x1d,30\x1e0,4096,40\x85junk\u20280,5120,50\u20290,6144,60\n')
put('cr_only', 'gpu,used_vram,gfx_activity\r0,1024,10\r0,2048,20\r\r')
put('banner_then_timestamp', "'CTRL' + 'C' to stop watching output:\nbanner, with a comma\nTimestamp,Gpu,Used_Vram,Usage\n1,0,2048,N/A\n\nTimestamp,Gpu,Used_Vram,Usage\n2,0,4096,N/A\n")
put('no_header', 'a,b,c\n1,2,3\n')
put('header_only', 'gpu,used_vram,gfx_activity\r\n\r\n')
put('header_variant_kept', 'gpu,used_vram,gfx_activity\n0,2048,10\ngpu,used_vram,gfx_activity \n0,4096,30\n')
put('whitespace_lines', 'gpu,used_vram,gfx_activity\n   \t\n\u00a0\u3000\n0,2048,10\n\x1f\n')
put('quote_quirk', 'gpu,used_vram,gfx_activity\n0,"20"48,"1"0\n0,4096,a"b\n')
put('nul_byte', 'gpu,used_vram,gfx_activity\n0,2048,1\x000\n0,1024,20\n')
put('substring_tiers', 'GPU,Mem Used Total,GFX Util %,ROCm Version\n0,2048,40,6.2\n0,4096,60,6.2\n')
put('float_syntax', 'gpu,VRAM_USED_GB,gfx_util\n0,1e400,1e-400\n0,+1.5e1,.5\n0,1_0.0_1,1.\n0,0x10,1__0\n0,-0.0,+infinity\n')
put('sum_order', 'gpu,used_vram,gfx_activity\n' + ''.join('0,%d,%s\n' % (v, u) for v, u in [(1, '0.1'), (3, '0.2'), (7, '0.3'), (196592, '99.9'), (5, '33.3333333')]))
out = os.path.dirname(os.path.abspath(__file__))
for k, v in cases.items():
    if len(v) > 65536 and '--all' not in sys.argv:
        continue
    with open(os.path.join(out, '%s.csv' % k), 'wb') as f:
        f.write(v)
