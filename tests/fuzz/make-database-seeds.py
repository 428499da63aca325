#!/usr/bin/env python3
"""Writes the crafted seeds of fuzz_database (tests/fuzz/seeds/database/craft-*): tiny rocpd, rpd
and Nsight Systems databases (512-byte pages) with one kernel each, and the hostile shapes the
readers must refuse without evaluating them (a generated name column, a virtual table, a view in
place of a table, a rocpd suffix that injects SQL). The real databases of tests/data are added by
scripts/ci-fuzz.sh at run time. Developer tool: rerun after changing it, commit the files."""
import os
import sqlite3

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "database")
S = "_0000a3a6_d6f7_7a74_85e3_0f431fce674a"


def write(name, sql):
    path = os.path.join(HERE, name)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size = 512")
    db.executescript(sql)
    db.commit()
    db.execute("VACUUM")
    db.close()


def rpd(string_column="string TEXT"):
    return f"""
CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, {string_column});
CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER,
    start INTEGER, "end" INTEGER, description_id INTEGER, opType_id INTEGER);
CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "end" INTEGER,
    apiName_id INTEGER, args_id INTEGER);
CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
INSERT INTO rocpd_metadata VALUES (1, 'schema_version', '2');
INSERT INTO rocpd_op VALUES (1, 0, 0, 0, 100, 200, 2, 1), (2, 0, 0, 1, 300, 350, 3, 4);
INSERT INTO rocpd_api VALUES (1, 7, 7, 90, 110, 5, 1);
"""


RPD_STRINGS = """INSERT INTO rocpd_string(id, {c}) VALUES (1, 'KernelExecution'), (2, 'Cijk_Ailk_Bljk_HHS'),
    (3, 'CopyHostToDevice'), (4, 'CopyHostToDevice'), (5, 'hipLaunchKernel');"""


def rocpd(suffix=S):
    t = lambda base: f'"{base}{suffix}"'
    return f"""
CREATE TABLE {t('rocpd_metadata')}(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
INSERT INTO {t('rocpd_metadata')} VALUES (1, 'schema_version', '3'), (2, 'guid', 'g');
CREATE TABLE {t('rocpd_info_node')}(id INTEGER PRIMARY KEY, guid TEXT);
CREATE TABLE {t('rocpd_string')}(id INTEGER PRIMARY KEY, guid TEXT, string TEXT);
CREATE TABLE {t('rocpd_info_process')}(id INTEGER PRIMARY KEY, guid TEXT, pid INTEGER);
CREATE TABLE {t('rocpd_info_thread')}(id INTEGER PRIMARY KEY, guid TEXT);
CREATE TABLE {t('rocpd_info_agent')}(id INTEGER PRIMARY KEY, guid TEXT, logical_index INTEGER);
CREATE TABLE {t('rocpd_info_queue')}(id INTEGER PRIMARY KEY, guid TEXT, pid INTEGER);
CREATE TABLE {t('rocpd_info_kernel_symbol')}(id INTEGER PRIMARY KEY, guid TEXT, display_name TEXT);
CREATE TABLE {t('rocpd_event')}(id INTEGER PRIMARY KEY, guid TEXT);
CREATE TABLE {t('rocpd_kernel_dispatch')}(id INTEGER PRIMARY KEY, guid TEXT, tid INTEGER, agent_id INTEGER,
    kernel_id INTEGER, queue_id INTEGER, start INTEGER, "end" INTEGER, region_name_id INTEGER, event_id INTEGER);
INSERT INTO {t('rocpd_string')} VALUES (1, 'g', 'KERNEL_DISPATCH');
INSERT INTO {t('rocpd_info_process')} VALUES (1, 'g', 4242);
INSERT INTO {t('rocpd_info_thread')} VALUES (1, 'g');
INSERT INTO {t('rocpd_info_agent')} VALUES (1, 'g', 0);
INSERT INTO {t('rocpd_info_queue')} VALUES (1, 'g', 1);
INSERT INTO {t('rocpd_info_kernel_symbol')} VALUES (1, 'g', 'void gemm<float>(float*) [clone .kd]');
INSERT INTO {t('rocpd_event')} VALUES (1, 'g'), (2, 'g');
INSERT INTO {t('rocpd_kernel_dispatch')} VALUES (1, 'g', 1, 1, 1, 1, 1000, 2000, 1, 1), (2, 'g', 1, 1, 1, 1, 3000, 3500, 1, 2);
"""


NSYS = """
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'saxpy(int, float, float*, float*)'), (2, 'saxpy'), (3, 'cudaLaunchKernel');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, "end" INTEGER, deviceId INTEGER, contextId INTEGER,
    streamId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER, graphId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 1, 7, 281474976710656, 1, 2, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, "end" INTEGER, nameId INTEGER, globalTid INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 95, 3, 281474976710657);
CREATE TABLE NVTX_EVENTS(start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT, textId INTEGER, globalTid INTEGER);
INSERT INTO NVTX_EVENTS VALUES (50, 300, 59, 'step 1', NULL, 281474976710657);
"""

if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    write("craft-rpd.rpd", rpd() + RPD_STRINGS.format(c="string"))
    write("craft-rpd-generated.rpd",
          rpd("base TEXT, string TEXT GENERATED ALWAYS AS (base || substr(hex(zeroblob(1000)), 1, 0)) VIRTUAL")
          + RPD_STRINGS.format(c="base"))
    write("craft-rpd-view.rpd", rpd().replace("CREATE TABLE rocpd_op(", "CREATE TABLE ops(")
          .replace("INSERT INTO rocpd_op", "INSERT INTO ops") + RPD_STRINGS.format(c="string")
          + "CREATE VIEW rocpd_op AS SELECT * FROM ops;")
    write("craft-rocpd.db", rocpd())
    write("craft-rocpd-injected-suffix.db", rocpd("_x') UNION ALL SELECT 1 --"))
    write("craft-nsys.sqlite", NSYS)
    write("craft-nsys-virtual.sqlite", NSYS.replace("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);",
                                                    "CREATE VIRTUAL TABLE StringIds USING fts5(id, value);"))
    print("wrote", len([f for f in os.listdir(HERE) if f.startswith("craft-")]), "seeds into", HERE)
