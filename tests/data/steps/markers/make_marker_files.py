#!/usr/bin/env python3
"""Writes kernel files whose own marker ranges are (or are not) a run's steps (docs/steps.md).

rpd-step-markers.rpd     rpd/matmul_result.rpd with rpd_tracer UserMarker rows (roctx ranges) added:
                         "step 1".."step 3" on the main thread, a nested "train_step" inside step 2,
                         a "forward" range, and one "step 99" on another thread
rpd-other-markers.rpd    the same database with markers none of whose names is a step's
rocpd-step-markers.db    rocpd/single-v3-metric-1gpu/48213_results.db with rocpd_region rows of the
                         MARKER_CORE_API category: ProfilerStep#1, #2 (named by extdata's message),
                         ProfilerStep#3 (no message: named by its region name), an instant
                         "ProfilerStep#9" mark, and a HIP_RUNTIME_API region whose message looks
                         like a step (not a marker: never a step)
Deterministic; Python 3 standard library only. Run: python3 make_marker_files.py (in this folder).
count_marker_steps.py counts the steps of these files (and of the other formats' fixtures).
"""
import os
import shutil
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(os.path.dirname(HERE))


def fresh_copy(source, target):
    if os.path.exists(target):
        os.remove(target)
    shutil.copyfile(os.path.join(DATA, source), target)
    return sqlite3.connect(target)


def rpd_string(db, text):
    row = db.execute("SELECT id FROM rocpd_string WHERE string = ?", (text,)).fetchone()
    if row:
        return row[0]
    return db.execute("INSERT INTO rocpd_string (string) VALUES (?)", (text,)).lastrowid


def rpd_markers(target, ranges):
    db = fresh_copy("rpd/matmul_result.rpd", target)
    marker = rpd_string(db, "UserMarker")
    for tid, name, start, end in ranges:
        db.execute("INSERT INTO rocpd_api (pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, ?)",
                   (1087077, tid, start, end, marker, rpd_string(db, name)))
    db.commit()
    db.execute("VACUUM")
    db.close()


# The rpd's kernels run from 8306020565922417 to 8306020633437342 ns.
RPD_BASE = 8306020000000000
RPD_STEPS = [
    (1087077, "step 1", RPD_BASE + 565_000_000, RPD_BASE + 589_000_000),
    (1087077, "step 2", RPD_BASE + 589_000_000, RPD_BASE + 611_000_000),
    (1087077, "train_step", RPD_BASE + 590_000_000, RPD_BASE + 600_000_000),  # nested in step 2
    (1087077, "forward", RPD_BASE + 591_000_000, RPD_BASE + 595_000_000),
    (1087077, "step 3", RPD_BASE + 611_000_000, RPD_BASE + 634_000_000),
    (1087089, "step 99", RPD_BASE + 570_000_000, RPD_BASE + 571_000_000),  # another thread, fewer steps
]
RPD_OTHER = [
    (1087077, "forward", RPD_BASE + 565_000_000, RPD_BASE + 589_000_000),
    (1087077, "backward", RPD_BASE + 589_000_000, RPD_BASE + 611_000_000),
    (1087077, "optimizer", RPD_BASE + 611_000_000, RPD_BASE + 634_000_000),
]

ROCPD_SOURCE = "rocpd/single-v3-metric-1gpu/48213_results.db"
ROCPD_SUFFIX = "_0000a3a6_d6f7_7a74_85e3_0f431fce674a"
ROCPD_GUID = "0000a3a6-d6f7-7a74-85e3-0f431fce674a"
# The rocpd's kernels run from 2745622215928974 to 2745622252208624 ns.
ROCPD_BASE = 2745622000000000
ROCPD_REGIONS = [  # (category, region name, extdata, start, end)
    ("MARKER_CORE_API", "roctxRangePushA", '{"message": "ProfilerStep#1"}', ROCPD_BASE + 215_900_000, ROCPD_BASE + 228_000_000),
    ("MARKER_CORE_API", "roctxRangePushA", '{"message": "ProfilerStep#2"}', ROCPD_BASE + 228_000_000, ROCPD_BASE + 240_000_000),
    ("MARKER_CORE_API", "ProfilerStep#3", "{}", ROCPD_BASE + 240_000_000, ROCPD_BASE + 252_300_000),
    ("MARKER_CORE_API", "roctxMarkA", '{"message": "ProfilerStep#9"}', ROCPD_BASE + 245_000_000, ROCPD_BASE + 245_000_000),
    ("HIP_RUNTIME_API", "hipLaunchKernel", '{"message": "step 7"}', ROCPD_BASE + 220_000_000, ROCPD_BASE + 230_000_000),
]


def rocpd_markers(target):
    db = fresh_copy(ROCPD_SOURCE, target)
    strings, events, regions = ("rocpd_string" + ROCPD_SUFFIX, "rocpd_event" + ROCPD_SUFFIX,
                                "rocpd_region" + ROCPD_SUFFIX)

    def string(text):
        row = db.execute(f"SELECT id FROM {strings} WHERE string = ?", (text,)).fetchone()
        if row:
            return row[0]
        return db.execute(f"INSERT INTO {strings} (guid, string) VALUES (?, ?)", (ROCPD_GUID, text)).lastrowid

    node = db.execute(f"SELECT id FROM rocpd_info_node{ROCPD_SUFFIX}").fetchone()[0]
    for category, name, extdata, start, end in ROCPD_REGIONS:
        event = db.execute(f"INSERT INTO {events} (guid, category_id) VALUES (?, ?)",
                           (ROCPD_GUID, string(category))).lastrowid
        db.execute(f"INSERT INTO {regions} (guid, nid, pid, tid, start, end, name_id, event_id, extdata) "
                   "VALUES (?, ?, 48213, 48213, ?, ?, ?, ?, ?)",
                   (ROCPD_GUID, node, start, end, string(name), event, extdata))
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    rpd_markers(os.path.join(HERE, "rpd-step-markers.rpd"), RPD_STEPS)
    rpd_markers(os.path.join(HERE, "rpd-other-markers.rpd"), RPD_OTHER)
    rocpd_markers(os.path.join(HERE, "rocpd-step-markers.db"))
