#!/usr/bin/env python3
"""misbehave.py - a worker for tests/test_workers.c that speaks aliasfuzz-worker/1 by hand (no
torch, no afworker: the C client is tested against the raw protocol) and misbehaves on demand.

It answers a request by echoing the first input as the only output and every input unchanged,
which is right for a program `r = alias(x); return r`. The program's meta "misbehave" picks
what goes wrong with that request instead:
  exit        reads the request, writes half an answer, exits with status 3
  segv        reads the request, kills itself with SIGSEGV
  hang        reads the request, never answers
  slow        answers normally after 3 s (a slow converter: tests/test_cli.c's reduce --deadline)
  eat         reads the request, makes 400 MiB resident, never answers (the memory cap ends it)
  garbage     answers a line that is not JSON
  wrong-size  answers ok, with 4 bytes too few in the output's data
  wrong-id    answers ok for another request id
  flood       writes 1 MiB to stderr, then answers normally
  wrong-outputs  answers ok with two outputs for the program's one
  poison      answers normally, but leaves the process broken: the NEXT request, whatever it is,
              kills it with SIGSEGV (in crash_in_broken_state; faulthandler shows the frames), as a
              converter whose native library a program damaged
Command-line options make it misbehave before any request:
  --hello die|garbage|old-protocol|unavailable|silent
  --stray-line        writes a line that is not protocol to fd 1 before every answer (as a native
                      library that prints)
  --exit-on-request   exits as soon as a request starts arriving, without reading it
  --edit-expect PATH  on its first request, edits the expectation file PATH as a person would
                      while a check runs: case "kept-case" gets the reason "added meanwhile",
                      case "added-meanwhile" is added (tests/test_check.c)
"""

import base64
import faulthandler
import json
import os
import signal
import sys
import time

faulthandler.enable()


def crash_in_broken_state():
    os.kill(os.getpid(), signal.SIGSEGV)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    args = sys.argv[1:]
    hello = args[args.index("--hello") + 1] if "--hello" in args else "ok"
    if hello == "die":
        sys.stderr.write("misbehave: dying before the hello, as asked\n")
        sys.stderr.flush()
        sys.exit(7)
    if hello == "garbage":
        print("Hello! I am not a JSON object.", flush=True)
    elif hello == "silent":
        time.sleep(3600)
    elif hello == "old-protocol":
        send({"protocol": "aliasfuzz-worker/0", "name": "misbehave", "versions": {}, "available": True})
    elif hello == "unavailable":
        send({"protocol": "aliasfuzz-worker/1", "name": "misbehave", "versions": {"misbehave": "1"},
              "available": False, "reason": "misbehave is unavailable, as asked"})
    else:
        send({"protocol": "aliasfuzz-worker/1", "name": "misbehave", "versions": {"misbehave": "1"},
              "available": True, "reason": None})
    if "--exit-on-request" in args:
        sys.stdin.buffer.read(1)
        os._exit(4)
    edit = args[args.index("--edit-expect") + 1] if "--edit-expect" in args else None
    broken = False
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        if edit:
            with open(edit) as f:
                doc = json.load(f)
            doc["cases"]["kept-case"] = {"verdict": "value-mismatch", "reason": "added meanwhile"}
            doc["cases"]["added-meanwhile"] = {"verdict": "converter-error", "reason": "added meanwhile"}
            with open(edit + ".tmp", "w") as f:
                json.dump(doc, f)
            os.replace(edit + ".tmp", edit)
            edit = None
        how = (req["program"].get("meta") or {}).get("misbehave", "")
        if broken:
            crash_in_broken_state()
        inputs = req["inputs"]
        out = {k: inputs[0][k] for k in ("shape", "dtype", "data")}
        answer = {"id": req["id"], "status": "ok", "outputs": [out],
                  "inputs": [{k: t[k] for k in ("shape", "dtype", "data")} for t in inputs],
                  "graph": "r = x  # echo", "warnings": ["echoing, as asked"]}
        if how == "exit":
            sys.stdout.write('{"id": %d, "status": "o' % req["id"])
            sys.stdout.flush()
            os._exit(3)
        elif how == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif how == "hang":
            time.sleep(3600)
        elif how == "slow":
            time.sleep(3)
        elif how == "eat":
            hog = b"x" * (400 << 20)  # written, so resident
            time.sleep(3600)
            del hog
        elif how == "garbage":
            print("Traceback (most recent call last): this is not JSON", flush=True)
            continue
        elif how == "wrong-size":
            raw = base64.b64decode(out["data"])
            out["data"] = base64.b64encode(raw[:-4]).decode("ascii")
        elif how == "wrong-id":
            answer["id"] = req["id"] + 100
        elif how == "wrong-outputs":
            answer["outputs"] = [out, out]
        elif how == "poison":
            broken = True
        elif how == "flood":
            for _ in range(1024):
                sys.stderr.write("x" * 1023 + "\n")
            sys.stderr.flush()
        if "--stray-line" in args:
            os.write(1, b"native library: initialising kernels\n")
        send(answer)


if __name__ == "__main__":
    main()
