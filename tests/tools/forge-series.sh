#!/bin/sh
# Give stored runs the time series, dirty thresholds and canary counts a
# real writeback run records, so the detail views and `sluice report` have
# something fixed to chart on a fixture root (the null workload does no
# I/O, and a real run's numbers depend on the machine).
#   forge-series.sh DB good RUN      30 samples, 3 s: MB/s rising then flat,
#                                    nr_dirty climbing past the background
#                                    threshold, writeback following; canary
#                                    stalls over 100 ms and 1 s
#   forge-series.sh DB other RUN     the same thresholds, another run's shape:
#                                    MB/s rising sooner to 480, nr_dirty held
#                                    at 6000, writeback from 0.6 s; 2 ticks over
#                                    100 ms in 40, none over 1 s
#                                    (what a comparison overlays against good)
#   forge-series.sh DB broken RUN    a malformed series and histogram blob
#   forge-series.sh DB gone RUN      no series and no histogram at all
# RUN is a run UUID or its start.
db=$1 what=$2 run=$3
where="substr(uuid, 1, length('$run')) = '$run'"
case $what in
good|other)
    [ "$what" = other ] && shape=1 || shape=0
    series=$(awk -v other=$shape 'BEGIN {
        n = 30
        for (i = 0; i < n; i++) {
            t = t (i ? "," : "") i * 100
            m = m (i ? "," : "") (i < 10 ? i * 40 : 400 - (i % 3) * 20)
            d = d (i ? "," : "") (i < 20 ? i * 450 : 9000)
            w = w (i ? "," : "") (i < 12 ? 0 : (i - 12) * 150)
            if (other) {
                m2 = m2 (i ? "," : "") (i < 6 ? i * 80 : 480 - (i % 2) * 30)
                d2 = d2 (i ? "," : "") (i < 10 ? i * 600 : 6000)
                w2 = w2 (i ? "," : "") (i < 6 ? 0 : (i - 6) * 100)
            }
        }
        if (other) { m = m2; d = d2; w = w2 }
        printf "{\"interval_ms\":100,\"t_ms\":[%s],\"nr_dirty\":[%s],\"nr_writeback\":[%s],\"mb_s\":[%s]}", t, d, w, m
    }')
    vm='{"dirty_threshold_pages":10000,"bg_threshold_pages":5000,"max_dirty_pages":9000,"max_writeback_pages":2550,"buffered_writes":true,"reached_threshold":true}'
    canary='{"ticks":30,"max_ns":1300000000,"p99_ns":1300000000,"sleep_max_ns":1300000000,"read_max_ns":2000000,"over_100ms":4,"over_1s":1,"over_2s":0,"editor_save":{"count":0,"max_ns":0,"p99_ns":0,"over_100ms":0,"over_1s":0}}'
    [ "$what" = other ] && canary='{"ticks":40,"max_ns":300000000,"p99_ns":300000000,"sleep_max_ns":300000000,"read_max_ns":2000000,"over_100ms":2,"over_1s":0,"over_2s":0,"editor_save":{"count":0,"max_ns":0,"p99_ns":0,"over_100ms":0,"over_1s":0}}'
    # the columns a real run keeps beside its JSON (the metric table's C rows)
    sqlite3 "$db" "UPDATE runs SET series_json = '$series',
        metrics_json = json_set(metrics_json, '$.vm', json('$vm'), '$.canary', json('$canary'),
                                '$.spec.canary', json('true')),
        max_dirty_pages = json_extract('$vm', '$.max_dirty_pages'),
        canary_max_ns = json_extract('$canary', '$.max_ns'), canary_p99_ns = json_extract('$canary', '$.p99_ns'),
        stalls_100ms = json_extract('$canary', '$.over_100ms'), stalls_1s = json_extract('$canary', '$.over_1s'),
        stalls_2s = json_extract('$canary', '$.over_2s')
        WHERE $where"
    ;;
broken)
    sqlite3 "$db" "UPDATE runs SET series_json = '{\"t_ms\":[0,100],\"mb_s\":[1]}', hist = X'00534C4831FF'
        WHERE $where"
    ;;
gone)
    sqlite3 "$db" "UPDATE runs SET series_json = NULL, hist = NULL WHERE $where"
    ;;
*)
    echo "forge-series.sh: give good, broken or gone" >&2
    exit 2
    ;;
esac
