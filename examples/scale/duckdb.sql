-- Over what a batch of runs wrote (xargs.sh, parallel.sh, job-array.sh, spark.py,
-- dask.py): OUT/parts/*.jsonl (records) and OUT/manifests/*.jsonl (one line per input).
-- Run from OUT:  cd OUT && duckdb < examples/scale/duckdb.sql
-- (or duckdb -c ".read PATH/duckdb.sql", or from Python, statement by statement).

CREATE OR REPLACE TEMP VIEW records AS
SELECT * FROM read_json('parts/*.jsonl', format = 'newline_delimited',
                        union_by_name = true);
CREATE OR REPLACE TEMP VIEW manifest AS
SELECT * FROM read_json('manifests/*.jsonl', format = 'newline_delimited',
                        columns = {path: 'VARCHAR', size: 'UBIGINT', mtime: 'TIMESTAMPTZ',
                                   xxh3: 'VARCHAR', status: 'VARCHAR', framing: 'VARCHAR',
                                   dialects: 'VARCHAR[]', records: 'UBIGINT'});

-- Calls per tool.
SELECT name, count(*) AS calls
FROM records WHERE type = 'call'
GROUP BY name ORDER BY calls DESC, name;

-- Inputs in error (rerun on them), read in part, or skipped.
SELECT path, status FROM manifest
WHERE status LIKE 'error:%' OR status LIKE 'read in part:%' OR status LIKE 'skipped:%'
ORDER BY path;

-- Inputs read whole with no record.
SELECT path, framing FROM manifest
WHERE status = 'read' AND records = 0
ORDER BY path;

-- Every input in exactly one manifest, and the records each manifest line counts are
-- in the parts (both queries return no row when so).
SELECT path, count(*) AS manifests FROM manifest GROUP BY path HAVING count(*) <> 1;
SELECT m.path, m.records, count(r.source) AS found
FROM manifest m LEFT JOIN records r ON r.source.file = m.path
GROUP BY m.path, m.records HAVING count(r.source) <> m.records;
