#!/usr/bin/env python3
"""Adds the host side of a rocprofv3 CSV run to a rocpd database made of its trace.csv
(/work/shared/tools/make_rocpd.py, which writes kernels only): every row of API_DIR's
*_hip_api_trace.csv becomes a rocpd_region of category HIP_RUNTIME_API_EXT named by its Function,
and every roctx range of *_marker_api_trace.csv a region of category MARKER_CORE_API named
"roctxRangePushA" with its text in extdata's message, as rocprofv3 writes them. Each region's
rocpd_event carries the row's Correlation_Id as stack_id (make_rocpd puts the kernels'
Correlation_Id there too, so a kernel's event and its HIP call's event share it). Process and
thread are the database's first process and thread (rocprofv3: the OS pid and tid as row ids).

usage: add_rocpd_api_regions.py DB API_DIR
"""
import csv, glob, json, os, sqlite3, sys


def main():
    db_path, api = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(db_path)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    suffix = next(t for t in tables if t.startswith('rocpd_metadata'))[len('rocpd_metadata'):]
    t = lambda base: f'"{base}{suffix}"'
    nid, pid = db.execute(f'SELECT nid, id FROM {t("rocpd_info_process")} ORDER BY id LIMIT 1').fetchone()
    tid = db.execute(f'SELECT id FROM {t("rocpd_info_thread")} ORDER BY id LIMIT 1').fetchone()[0]

    def string(text):
        row = db.execute(f'SELECT id FROM {t("rocpd_string")} WHERE string = ?', (text,)).fetchone()
        if row:
            return row[0]
        return db.execute(f'INSERT INTO {t("rocpd_string")} (string) VALUES (?)', (text,)).lastrowid

    regions = 0
    for path in sorted(glob.glob(os.path.join(api, '*_api_trace.csv'))):
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                marker = row['Domain'].startswith('MARKER')
                category = string('MARKER_CORE_API' if marker else 'HIP_RUNTIME_API_EXT')
                event = db.execute(f'INSERT INTO {t("rocpd_event")} (category_id, stack_id, parent_stack_id, '
                                   'correlation_id) VALUES (?, ?, 0, 0)',
                                   (category, int(row['Correlation_Id']))).lastrowid
                name = string('roctxRangePushA' if marker else row['Function'])
                extdata = json.dumps({'message': row['Function']}) if marker else '{}'
                db.execute(f'INSERT INTO {t("rocpd_region")} (nid, pid, tid, start, "end", name_id, event_id, '
                           'extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
                           (nid, pid, tid, int(row['Start_Timestamp']), int(row['End_Timestamp']), name, event,
                            extdata))
                regions += 1
    db.commit()
    db.execute('VACUUM')
    print(f'{regions} regions added (process {pid}, thread {tid})')


if __name__ == '__main__':
    main()
