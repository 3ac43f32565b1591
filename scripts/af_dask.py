#!/usr/bin/env python3
"""af_dask.py - one aliasfuzz campaign as N shards on Dask, then one merged folder (issue 32).

    python3 scripts/af_dask.py --shards 4 --workers 2 --out OUT -- --converter naive --seed 3 --iterations 400
    python3 scripts/af_dask.py --shards 64 --scheduler tcp://HOST:8786 --out OUT -- --converter inductor --time 3600

Each shard K of N is one task, `aliasfuzz fuzz ARGS --shard K/N --out OUT/shard-K` (docs/distributed.md);
when all are done, `aliasfuzz merge OUT/merged OUT/shard-*` makes one campaign folder and report of them.
Without --scheduler a dask.distributed LocalCluster of --workers processes runs the shards on this
machine. With --scheduler the shards run on that cluster's workers (each needs aliasfuzz at --aliasfuzz
and the converter's stack); unless --shared-fs says OUT is on a file system every worker sees, each
task sends its shard's folder back as a tar.gz and this script unpacks it into OUT/shard-K. A shard
folder that exists already is resumed (the same command resumes a campaign), so running this again
after a failure redoes only what is missing. Exit status: 0 merged; 1 a shard failed (exit 2 or 4:
usage, setup or write error; its output is printed) or the merge failed; 2 usage error.
"""
import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile


def run_shard(aliasfuzz, fuzz_args, k, n, folder, ship):
    """One shard, on a Dask worker: its exit status, output tail, worker and (ship) its folder as tar.gz."""
    from distributed import get_worker

    cmd = [aliasfuzz, "fuzz", *fuzz_args, "--shard", f"{k}/{n}", "--out", folder]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    data = None
    if ship and os.path.isdir(folder):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as t:
            t.add(folder, arcname=".", filter=lambda i: None if os.path.basename(i.name) == ".lock" else i)
        data = buf.getvalue()
    return {"shard": k, "rc": p.returncode, "output": p.stdout[-4000:], "worker": get_worker().address, "tar": data}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", type=int, required=True, help="N: the campaign's iteration space in N shards")
    ap.add_argument("--out", required=True, help="folder: OUT/shard-K per shard, OUT/merged for the merge")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (without --scheduler); default 2")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786)")
    ap.add_argument("--shared-fs", action="store_true", help="with --scheduler: OUT is on a file system all workers see")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--aliasfuzz", default=os.path.join(os.path.dirname(here), "build", "aliasfuzz"),
                    help="the aliasfuzz binary (on the workers too); default build/aliasfuzz of this checkout")
    ap.add_argument("fuzz_args", nargs=argparse.REMAINDER, help="-- then `aliasfuzz fuzz` options (not --shard, --out)")
    a = ap.parse_args()
    fuzz_args = a.fuzz_args[1:] if a.fuzz_args[:1] == ["--"] else a.fuzz_args
    if a.shards < 1 or a.workers < 1:
        ap.error("--shards and --workers must be at least 1")
    if any(x in ("--shard", "--out") for x in fuzz_args):
        ap.error("--shard and --out are this script's: give the other `aliasfuzz fuzz` options after --")
    if not any(x == "--converter" for x in fuzz_args):
        ap.error("`aliasfuzz fuzz` needs --converter NAME after --")
    from distributed import Client, LocalCluster

    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    ship = bool(a.scheduler) and not a.shared_fs
    cluster = None
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        futures = [client.submit(run_shard, a.aliasfuzz, fuzz_args, k, a.shards, os.path.join(out, f"shard-{k}"), ship,
                                 key=f"aliasfuzz-shard-{k}-of-{a.shards}", pure=False) for k in range(1, a.shards + 1)]
        results = client.gather(futures)
    finally:
        client.close()
        if cluster:
            cluster.close()
    failed = 0
    for r in sorted(results, key=lambda r: r["shard"]):
        folder = os.path.join(out, f"shard-{r['shard']}")
        if r["tar"] is not None:
            shutil.rmtree(folder, ignore_errors=True)
            with tarfile.open(fileobj=io.BytesIO(r["tar"]), mode="r:gz") as t:
                t.extractall(folder, filter="data")
        last = r["output"].strip().splitlines()[-1:] or [""]
        print(f"af_dask: shard {r['shard']}/{a.shards} on worker {r['worker']}: exit {r['rc']}: {last[0]}", flush=True)
        if r["rc"] not in (0, 1, 5):  # 1: findings, 5: harness findings only (cli/cli_exit.c)
            failed += 1
            print(r["output"], file=sys.stderr)
    if failed:
        print(f"af_dask: {failed} shard(s) failed; run the same command again to resume them", file=sys.stderr)
        return 1
    shards = [os.path.join(out, f"shard-{k}") for k in range(1, a.shards + 1)]
    return 0 if subprocess.run([a.aliasfuzz, "merge", os.path.join(out, "merged"), *shards]).returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
