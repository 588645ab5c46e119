#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""agg_compare.py RAW REPORT_JSON JOBS_CSV RINGS: the aggregator's totals
against "grtrace report" on a recording of the same events.

RAW is aggregator_stats_raw, REPORT_JSON "report --per-ring [--per-ctx]
--format json", JOBS_CSV "report --format csv" (the job rows), RINGS the
rings file.  Per ring of the recording, and per context when both have
them: jobs, busy time, queue depth (peak, and its time integral, which is
the report's depth_avg times its window, within 0.1 % or the rounding of
depth_avg), latency (t_total: count, min, sum, max exactly; p50 and p99
within the histogram's bucket).  Prints PASS/FAIL lines for tap_lib.sh's
check.
"""
import csv
import json
import sys


def raw_totals(path, scope='total', key='ring'):
    groups = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                continue
            kv = dict(w.split('=', 1) for w in line.split())
            if kv.get('scope') == scope:
                groups[int(kv[key])] = {k: int(v) for k, v in kv.items()
                                        if k != 'scope'}
    return groups


def ring_names(path):
    names = {}
    with open(path) as f:
        next(f)
        for line in f:
            w = line.split()
            names[int(w[0])] = w[-1]
    return names


def compare(what, agg, groups, lat, name_of):
    """PASS/FAIL lines for each of @groups (the report's rows with jobs)
    against @agg, the aggregator's totals by the same key."""
    for r in groups:
        gid = r[what]
        name = name_of(gid)
        a = agg.get(gid)
        if a is None:
            print('FAIL %s %s: not in the aggregator' % (what, name))
            continue
        vals = sorted(lat.get(gid, []))
        area = r['depth_avg'] * r['window_ns']
        print('# %s %s: aggregator jobs=%d busy_ns=%d depth_peak=%d depth_area=%d lat n/min/sum/max/p50/p99=%d/%d/%d/%d/%d/%d'
              % (what, name, a['jobs'], a['busy_ns'], a['depth_peak'], a['depth_area'],
                 a['lat_n'], a['lat_min_ns'], a['lat_sum_ns'], a['lat_max_ns'],
                 a['lat_p50_ns'], a['lat_p99_ns']))
        print('# %s %s: report     jobs=%d busy_ns=%d depth_max=%d depth_area=%.0f t_total n/min/sum/max/p50/p99=%d/%d/%d/%d/%s/%s'
              % (what, name, r['jobs'], r['busy_ns'], r['depth_max'], area,
                 r['t_total_count'], vals[0] if vals else -1, sum(vals),
                 r['t_total_max'] or 0, r['t_total_p50'], r['t_total_p99']))
        # Events that reached the kernel out of stamp order (two CPUs)
        # are accounted from the ring's last stamp, each off by its lag:
        # busy time is exact without them, and with them off by no more
        # than their lags in all (late_ns; said).  Under TCG a vCPU can
        # wait a time slice between its stamp and the aggregator.
        late, lag = a.get('late'), a.get('late_ns')
        if late is None or lag is None:
            print('FAIL %s %s: the aggregator gives no late count or lag' % (what, name))
            late, lag = late or 0, lag or 0
        if late:
            print('# %s %s: %d events reached the aggregator out of stamp order, %d ns late in all: busy_ns and the depth integral within that'
                  % (what, name, late, lag))
        busy_ok = abs(a['busy_ns'] - r['busy_ns']) <= lag
        checks = [
            ('jobs', a['jobs'] == r['jobs']),
            ('busy_ns', busy_ok),
            ('depth peak', a['depth_peak'] == r['depth_max']),
            # The kernel integrates in the order events reach it, the
            # report in the order it merges them: a COMMIT and an END of
            # two CPUs microseconds apart may swap.  Within 0.1 %, or
            # the rounding of the report's depth_avg to 3 decimals, and
            # the late events' lag (each moves the depth by one).
            ('depth integral within 0.1 %',
             abs(a['depth_area'] - area) <= max(1.0, area * 1e-3,
                                                 0.0005 * r['window_ns']) + lag),
            ('latency count', a['lat_n'] == r['t_total_count'] == len(vals)),
            ('latency min, sum and max',
             vals and (a['lat_min_ns'], a['lat_sum_ns'], a['lat_max_ns']) ==
             (vals[0], sum(vals), r['t_total_max'])),
        ]
        for p in (50, 99):
            exact = r['t_total_p%d' % p] or 0
            checks.append(('latency p%d within its bucket' % p,
                           abs(a['lat_p%d_ns' % p] - exact) <= exact / 8 + 1))
        for w, good in checks:
            print('%s %s %s: %s equal to the report\'s' % ('PASS' if good else 'FAIL', what, name, w))


def main():
    raw_path, rep_path, csv_path, rings_path = sys.argv[1:5]
    names = ring_names(rings_path)
    rep = json.load(open(rep_path))
    lat, lat_ctx = {}, {}
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            if row['t_total'] != '':
                lat.setdefault(int(row['ring']), []).append(int(row['t_total']))
                lat_ctx.setdefault(int(row['ctx']), []).append(int(row['t_total']))
    rings = [r for r in rep['rings'] if r['jobs']]
    if not rings:
        print('FAIL the report has no ring with jobs')
        return
    compare('ring', raw_totals(raw_path), rings, lat,
            lambda i: names.get(i, '?'))
    if 'ctxs' in rep:
        ctxs = [c for c in rep['ctxs'] if c['jobs']]
        if len(ctxs) < 2:
            print('FAIL the report has %d contexts with jobs' % len(ctxs))
        compare('ctx', raw_totals(raw_path, 'ctx_total', 'ctx'), ctxs,
                lat_ctx, str)


if __name__ == '__main__':
    main()
