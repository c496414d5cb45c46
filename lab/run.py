#!/usr/bin/python3
"""Runs the lab's benchmarks and collects their records (see lab/README.md).

  run.py --bin <dir of lab programs> --out <build/lab> [--bench name[,name]] [--quick]

Every lab/<name>/bench.py is a benchmark: its plan(ctx) lists the steps (programs to run)
in order. Steps run one after another -- never two at once, so they do not compete for
the machine's two cores -- with progress on stderr. Each step's stdout is JSON records,
one per line; run.py adds "run", "kernel", "machine" and "date" to each, pools the
rounds of each series (lab/common/rounds.py, see README), writes
<out>/results.jsonl (replaced by every invocation, so a file never mixes runs), prints
one table per benchmark, then the verdicts of the project's claims on the benchmarks it
ran (lab/claims.py), and calls report.py for <out>/report.html and its plots.

Each benchmark has a time budget for a full run (BUDGET_S below, or BUDGET_S in its
bench.py), printed at the start; a benchmark that runs past 1.5x its budget has its
remaining steps skipped and counted as failed, so one benchmark cannot eat the lab's
45 minutes.

Exit status: 0 when every step passed or skipped, 1 when a step failed (the run goes
on after a failure), 2 for bad arguments.
"""
import argparse
import datetime
import fcntl
import importlib.util
import json
import math
import os
import signal
import platform
import shutil
import subprocess
import sys
import time

LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(LAB, "common"))  # rounds, count, plotting: shared by every bench.py
from rounds import RUN_KEYS, STAT_KEYS, pool  # noqa: E402,F401  (the one way to pool rounds)
import claims  # noqa: E402  (lab/claims.py: the project's claims)

# Parameter keys of the lab contract (lab/README.md), in the order tables show them. "engine"
# and "backend" name what was measured (part of the series), not a parameter.
PARAM_KEYS = ("fds", "active", "changes", "batch", "depth", "delay_us", "msg_bytes", "pattern", "file", "gap_us",
              "conns", "idle_conns", "inflight", "op", "parent_rss_mb", "workload", "threads")
SKIP_EXIT = 77

# Each benchmark's wall-time budget in a full run, in seconds (QUICK=1 runs are not held to
# them). Together they stay within DESIGN.md's 45 minutes for the whole lab. A new benchmark
# adds its line here, or declares BUDGET_S in its bench.py (which wins); one with neither
# gets its plan's estimate.
# Set at about 1.03x what each took in the full run 20261127T203825Z (36m47s in all, AMD EPYC VM),
# or its estimate for the benchmarks added since (https-hello, py-http, py-tls-echo, py-files), so that
# the whole lab, now 24 benchmarks, keeps to the 45 minutes; a step skipped past 1.5x shows in the report.
LAB_BUDGET_S = 45 * 60
BUDGET_S = {
    "ctl-batch": 57,
    "file-batch": 101,
    "http-hello": 102,  # wrk rounds (90 s) and the memory run: 10,000 connections, one at a time, per server
    "iteration": 78,
    "mq-empty": 25,
    "mq-full": 38,
    "mq-lowrate": 80,  # four systems, eight rounds of 0.45 s per gap (76 s measured)
    "mq-pingpong": 46,
    "net-echo": 355,
    "net-fair": 126,
    "py-echo": 340,
    "py-timers": 29,
    "qemu-loop": 90,
    "smallset": 41,
    "timer-error": 133,
}
OVER_BUDGET = 1.5  # past this share of its budget, a benchmark's remaining steps are skipped


class Ctx:
    """What plan(ctx) sees: bin (programs), quick, tmp (scratch dir), out (results dir)."""

    def __init__(self, bin_dir, quick, tmp, out):
        self.bin, self.quick, self.tmp, self.out = bin_dir, quick, tmp, out


def discover(names=None):
    """The benchmark modules under lab/*/bench.py, ordered by folder name. names: only
    those whose NAME or folder is listed. Returns [(folder, module)]; a bench.py that
    cannot be imported is reported on stderr and left out."""
    found = []
    for d in sorted(os.listdir(LAB)):
        path = os.path.join(LAB, d, "bench.py")
        if not os.path.isfile(path):
            continue
        try:
            spec = importlib.util.spec_from_file_location(f"vigil_lab_{d.replace('-', '_')}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        except Exception as e:  # one broken bench.py must not stop the others
            print(f"lab: cannot load {path}: {e!r}", file=sys.stderr)
            continue
        if not hasattr(mod, "NAME"):
            mod.NAME = d
        if names and mod.NAME not in names and d not in names:
            continue
        found.append((d, mod))
    return found


def machine_id():
    model, cores = platform.processor() or platform.machine(), os.cpu_count() or 0
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {cores} cores"


def source_commit():
    """The commit the programs were built from, "+changes" when the tree differs from it."""
    try:
        root = os.path.dirname(LAB)
        c = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                           text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return (c + ("+changes" if dirty else "")) or None
    except (OSError, subprocess.SubprocessError):
        return None


def loadavg():
    """The 1-minute load average: how busy the shared machine was (p99s show it)."""
    try:
        return float(open("/proc/loadavg").read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


# ------------------------------------------------------------------- tables

def fmt(x):
    if x is None:
        return "-"
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)[:12]
    return "-" if math.isnan(x) else claims.fmt(x)


def series_label(rec):
    """system + case, plus backend/engine when the case does not already say them."""
    system, case = str(rec.get("system", "?")), str(rec.get("case", ""))
    label = case if case.lower().startswith(system.lower()) else f"{system} {case}".strip()
    for k in ("backend", "engine"):
        v = rec.get(k)
        if v is not None and str(v).lower() not in label.lower():
            label += f" [{v}]"
    return label


def params_of(rec, keys):
    return tuple((k, rec[k]) for k in keys if k in rec)


def param_label(p):
    return " ".join(f"{k}={v}" for k, v in p) or "-"


def sort_params(ps):
    def key(p):
        return tuple((0, float(v), "") if isinstance(v, (int, float)) else (1, 0.0, str(v)) for _, v in p)
    return sorted(ps, key=key)


def table_data(rows, param_keys=PARAM_KEYS):
    """Per metric: (metric, params list, series list, cells {(param, series): rec})."""
    out = []
    metrics = []
    for r in rows:
        if r.get("metric") not in metrics:
            metrics.append(r.get("metric"))
    for m in metrics:
        rs = [r for r in rows if r.get("metric") == m]
        keys = [k for k in param_keys if any(k in r for r in rs)]
        params, series, cells = [], [], {}
        for r in rs:
            p, s = params_of(r, keys), series_label(r)
            if p not in params:
                params.append(p)
            if s not in series:
                series.append(s)
            cells[(p, s)] = r
        out.append((m, sort_params(params), series, cells))
    return out


def cell_text(rec):
    if rec is None:
        return "-"
    if "p99" in rec:
        return f"{fmt(rec.get('value'))} / {fmt(rec['p99'])}"
    return fmt(rec.get("value"))


def text_tables(name, title, rows, param_keys=PARAM_KEYS, width=120):
    """One table per metric: parameter groups down, systems across (each cell: median /
    p99); turned the other way when the systems would not fit in `width` columns."""
    lines = [f"== {name}: {title}"]
    if not rows:
        return lines + ["   (no records)"]
    for metric, params, series, cells in table_data(rows, param_keys):
        has_p99 = any("p99" in r for r in cells.values())
        lines.append(f"   {metric}" + ("  (median / p99)" if has_p99 else ""))
        grid_rows = [param_label(p) for p in params]
        cols = series
        get = lambda i, j: cells.get((params[i], series[j]))  # noqa: E731
        w_rows = max(len(x) for x in grid_rows)
        texts = [[cell_text(get(i, j)) for j in range(len(cols))] for i in range(len(grid_rows))]
        widths = [max(len(c), *(len(texts[i][j]) for i in range(len(grid_rows)))) for j, c in enumerate(cols)]
        if 3 + w_rows + sum(w + 2 for w in widths) > width and len(params) < len(series):
            # transpose: systems down, parameter groups across
            grid_rows, cols = series, [param_label(p) for p in params]
            texts = [[cell_text(cells.get((params[j], series[i]))) for j in range(len(params))]
                     for i in range(len(series))]
            w_rows = max(len(x) for x in grid_rows)
            widths = [max(len(c), *(len(texts[i][j]) for i in range(len(grid_rows)))) for j, c in enumerate(cols)]
        # still too wide: print the columns in chunks that fit, one under the other
        chunks, cur, used = [], [], 3 + w_rows
        for j, w in enumerate(widths):
            if cur and used + w + 2 > width:
                chunks.append(cur)
                cur, used = [], 3 + w_rows
            cur.append(j)
            used += w + 2
        chunks.append(cur)
        for chunk in chunks:
            lines.append("   " + " " * w_rows + "".join(f"  {cols[j]:>{widths[j]}}" for j in chunk))
            for i, rl in enumerate(grid_rows):
                lines.append("   " + f"{rl:<{w_rows}}" + "".join(f"  {texts[i][j]:>{widths[j]}}" for j in chunk))
    return lines


# ------------------------------------------------------------------ running

def hms(s):
    s = max(0, int(round(s)))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """One status line on stderr: rewritten in place on a terminal, one line per step in
    a log. Time left = remaining estimates scaled by how the estimates have held so far."""

    def __init__(self, total_est):
        self.total_est, self.done_est, self.t0 = total_est, 0.0, time.monotonic()
        self.tty = sys.stderr.isatty()
        self.open = False
        self.text, self.last_bench, self.last_line = "", None, 0.0

    def left(self, in_step=0.0):
        el = time.monotonic() - self.t0 - in_step
        scale = min(4.0, max(0.5, el / self.done_est)) if self.done_est > 5 else 1.0
        return max(0.0, (self.total_est - self.done_est) * scale - in_step)

    def show(self, text, in_step=0.0):
        """in_step: seconds the current step has run (the line ticks on a terminal)."""
        if in_step and not self.tty:
            return
        self.text = text
        line = f"{text}  (~{hms(self.left(in_step))} left)"
        if self.tty:
            cols = shutil.get_terminal_size((120, 20)).columns
            sys.stderr.write("\r\033[K" + line[:cols - 1])
            self.open = True
        else:
            # a log gets a line every few seconds (and each benchmark's first), not
            # one per step: a full run has hundreds of steps
            bench = text.split("]")[0]
            now = time.monotonic()
            if bench == self.last_bench and now - self.last_line < 3.0:
                return
            self.last_bench, self.last_line = bench, now
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def say(self, text):
        """A line that stays (skip, failure); "" only clears the status line."""
        if self.open:
            sys.stderr.write("\r\033[K")
            self.open = False
        if text:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()


def resolve(cmd0, bin_dir):
    return cmd0 if os.path.isabs(cmd0) else os.path.join(bin_dir, cmd0)


def kill_group(p):
    """Kills a step and every process of its session (it was started as a session leader)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        p.kill()


def run_step(step, bin_dir, quick, log, tick=None):
    """Runs one step. Returns (status, records, note) with status pass|skip|fail."""
    cmd = [str(c) for c in step["cmd"]]
    exe = resolve(cmd[0], bin_dir)
    if not os.access(exe, os.X_OK):
        return "skip", [], f"program {cmd[0]} not built"
    env = dict(os.environ)
    env.pop("QUICK", None)
    if quick:
        env["QUICK"] = "1"
    env.update({k: str(v) for k, v in (step.get("env") or {}).items()})
    est = float(step.get("est_s", 5))
    timeout = step.get("timeout_s") or max(60.0, 10 * est)
    log.write(f"\n$ {' '.join(cmd)}  env={step.get('env') or {}}\n")
    log.flush()
    try:
        # Its own session: a step that times out is killed with everything it started
        # (a server, strace), which would otherwise hold its pipes open for ever.
        p = subprocess.Popen([exe] + cmd[1:], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    except OSError as e:
        return "fail", [], f"cannot run: {e}"
    t0 = time.monotonic()
    while True:
        try:
            # the status line ticks while a long step runs
            out, err = p.communicate(timeout=1.0)
            break
        except subprocess.TimeoutExpired:
            if tick:
                tick(time.monotonic() - t0)
            if time.monotonic() - t0 > timeout:
                kill_group(p)
                out, err = p.communicate()
                log.write(out + err)
                return "fail", [], f"timed out after {timeout:.0f}s"
        except BaseException:  # Ctrl-C: never leave a benchmark running behind us
            kill_group(p)
            p.wait()
            raise
    log.write(out)
    log.write(err)
    log.flush()
    recs, bad = [], 0
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if not isinstance(rec, dict) or not all(k in rec for k in ("system", "metric", "value")):
            bad += 1
            continue
        recs.append(rec)
    err_tail = [ln for ln in err.strip().splitlines() if ln.strip()]
    last = err_tail[-1].strip() if err_tail else ""
    if last.lower().startswith("skip:"):
        last = last[5:].strip()
    if p.returncode == SKIP_EXIT:
        return "skip", recs, last or "exit 77"
    if p.returncode != 0:
        why = f"exit {p.returncode}" if p.returncode > 0 else f"signal {-p.returncode}"
        return "fail", recs, f"{why}: {last}" if last else why
    if bad:
        return "fail", recs, f"{bad} stdout line(s) not records of the lab contract"
    return "pass", recs, ""


def budget_s(mod, steps):
    """The benchmark's time budget for a full run: its bench.py's BUDGET_S, the table's,
    or its steps' estimate."""
    b = getattr(mod, "BUDGET_S", None) or BUDGET_S.get(mod.NAME)
    return float(b) if b else sum(float(s.get("est_s", 5)) for s in steps or [])


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder of the lab's programs (build/rel/lab)")
    ap.add_argument("--out", required=True, help="results folder (build/lab)")
    ap.add_argument("--bench", help="only these benchmarks (comma-separated names)")
    ap.add_argument("--quick", action="store_true", help="about a second per case (QUICK=1)")
    ap.add_argument("--no-report", action="store_true", help="do not call report.py")
    ap.add_argument("--dry-run", action="store_true", help="list the steps and their estimated time, run nothing")
    return ap.parse_args(argv)


def select_benches(arg):
    """(benchmarks asked for, None) or (None, exit status) after saying what is wrong."""
    names = [n for n in (arg or "").split(",") if n]
    benches = discover(names)
    if names:
        known = {m.NAME for _, m in discover()} | {d for d, _ in discover()}
        unknown = [n for n in names if n not in known]
        if unknown:
            print(f"lab: unknown benchmark {', '.join(unknown)}; known: {' '.join(sorted(known))}",
                  file=sys.stderr)
            return None, 2
    if not benches:
        print("lab: no benchmarks found (lab/*/bench.py)", file=sys.stderr)
        return None, 2 if names else 0
    return benches, None


def lock_out(out):
    """Two runs into one folder would mix their records and fight over the machine: the
    second waits for the first. Returns the lock's file (held while it is open)."""
    lock = open(os.path.join(out, ".lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"lab: another run is writing {out}; waiting for it", file=sys.stderr)
        fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def run_meta():
    """What every record of this run carries: run id, kernel, machine, date."""
    start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return {
        "run": start.strftime("%Y%m%dT%H%M%SZ"),
        "kernel": platform.release(),
        "machine": machine_id(),
        "date": start.isoformat().replace("+00:00", "Z"),
    }


def make_plans(benches, bin_dir, quick, out):
    """[(folder, module, scratch dir, steps or None when plan() raised)]."""
    plans = []
    for folder, mod in benches:
        tmp = os.path.join(out, "tmp", folder)
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp, exist_ok=True)
        ctx = Ctx(bin_dir, quick, tmp, out)
        try:
            steps = list(mod.plan(ctx))
        except Exception as e:
            print(f"lab: {mod.NAME}: plan() failed: {e!r}", file=sys.stderr)
            steps = None
        plans.append((folder, mod, tmp, steps))
    return plans


def dry_run(plans, total_est, out):
    for folder, mod, tmp, steps in plans:
        shutil.rmtree(tmp, ignore_errors=True)
        est = sum(float(s.get("est_s", 5)) for s in steps or [])
        print(f"{mod.NAME}: {len(steps or [])} steps, ~{hms(est)} (budget {hms(budget_s(mod, steps))})")
        for s in steps or []:
            print(f"   {float(s.get('est_s', 5)):6.2f}s  {s.get('label', '')}: {' '.join(map(str, s['cmd']))}")
    print(f"total ~{hms(total_est)}")
    shutil.rmtree(os.path.join(out, "tmp"), ignore_errors=True)
    return 0


class Run:
    """One invocation's running: its records file, log, progress line and status."""

    def __init__(self, a, plans, meta, total_est):
        self.a, self.plans, self.meta = a, plans, meta
        self.bin_dir, self.out = os.path.abspath(a.bin), os.path.abspath(a.out)
        self.results_path = os.path.join(self.out, "results.jsonl")
        self.results = open(self.results_path, "w")  # replaced: one file never mixes runs
        self.log = open(os.path.join(self.out, "run.log"), "w")
        self.prog = Progress(total_est)
        self.status = {"meta": meta, "quick": a.quick, "benchmarks": [], "load_start": loadavg(),
                       "commit": source_commit()}
        self.failed, self.raw, self.cur = 0, [], None
        self.ran = []  # the benchmarks whose records were written

    def say_start(self, total_est):
        meta, prog = self.meta, self.prog
        prog.say(f"lab: run {meta['run']} on {meta['machine']}, kernel {meta['kernel']}; "
                 f"{len(self.plans)} benchmark(s), ~{hms(total_est)} estimated{' (quick)' if self.a.quick else ''}")
        if not self.a.quick:
            budgets = [(mod.NAME, budget_s(mod, steps)) for _, mod, _, steps in self.plans]
            total = sum(b for _, b in budgets)
            prog.say("lab: time budgets: " + ", ".join(f"{n} {hms(b)}" for n, b in budgets)
                     + f" (total {hms(total)}; the whole lab {hms(LAB_BUDGET_S)}"
                     + (": OVER it)" if total > LAB_BUDGET_S else ")"))

    def flush_bench(self, mod, tmp):
        """Pools the benchmark's records, writes them; returns them."""
        rows = pool(self.raw)
        for r in rows:
            r.update(self.meta)
            self.results.write(json.dumps(r) + "\n")
        self.results.flush()
        self.raw.clear()
        shutil.rmtree(tmp, ignore_errors=True)
        self.ran.append(mod.NAME)
        return rows

    def step(self, tag, where, mod, step, bstat, said, over):
        """Runs one step (or skips it when the benchmark is over its budget) and notes it.
        tag: "[i/n name]"; where: "step i/n"."""
        prog = self.prog
        label = step.get("label") or " ".join(map(str, step["cmd"]))
        t0 = time.monotonic()
        if over:
            st, recs, note = "skip", [], over
        else:
            prog.show(f"{tag} {where}: {label}")
            st, recs, note = run_step(step, self.bin_dir, self.a.quick, self.log,
                                      tick=lambda el: prog.show(prog.text, el))
        dt = time.monotonic() - t0
        prog.done_est += float(step.get("est_s", 5))
        for r in recs:
            r.setdefault("bench", mod.NAME)
        self.raw.extend(recs)
        bstat["steps"].append({"label": label, "status": st, "note": note, "seconds": round(dt, 2),
                               "records": len(recs)})
        key = (str(step["cmd"][0]), st, note)
        if over or (st == "skip" and key in said):
            pass  # said once for the benchmark; the same program skipped for the same reason before
        elif st == "skip":
            said.add(key)
            prog.say(f"{tag} {label}: skipped: {note}")
        elif st == "fail":
            self.failed += 1
            prog.say(f"{tag} {label}: FAILED: {note} (see {self.log.name})")

    def bench(self, bi, folder, mod, tmp, steps):
        """Runs one benchmark's steps, writes its records, prints its table."""
        bstat = {"name": mod.NAME, "folder": folder, "steps": []}
        self.status["benchmarks"].append(bstat)
        if steps is None:
            bstat["steps"].append({"label": "plan()", "status": "fail", "note": "plan() raised"})
            self.failed += 1
            return
        t_b, said = time.monotonic(), set()
        budget = budget_s(mod, steps)
        bstat["budget_s"] = budget
        self.cur = (mod, tmp)
        tag, over = f"[{bi}/{len(self.plans)} {mod.NAME}]", None
        for si, step in enumerate(steps, 1):
            if not over and not self.a.quick and time.monotonic() - t_b > OVER_BUDGET * budget:
                over = f"not run: the benchmark was past {OVER_BUDGET}x its time budget of {hms(budget)}"
                bstat["over_budget"] = True
                self.failed += 1
                self.prog.say(f"{tag} FAILED: past {OVER_BUDGET}x its time budget ({hms(budget)}); "
                              f"its {len(steps) - si + 1} remaining steps are skipped")
            self.step(tag, f"step {si}/{len(steps)}", mod, step, bstat, said, over)
        self.cur = None
        rows = self.flush_bench(mod, tmp)
        bstat["seconds"] = round(time.monotonic() - t_b, 1)
        lines = text_tables(mod.NAME, getattr(mod, "TITLE", ""), [r for r in rows if r.get("bench") == mod.NAME],
                            getattr(mod, "PARAMS", PARAM_KEYS))
        self.prog.say("")  # clears the status line
        print("\n".join(lines), flush=True)

    def all(self):
        """Runs every benchmark; False when interrupted (what was measured is kept)."""
        try:
            for bi, (folder, mod, tmp, steps) in enumerate(self.plans, 1):
                self.bench(bi, folder, mod, tmp, steps)
        except KeyboardInterrupt:
            # keep what was measured: the records so far, and which steps ran
            if self.cur:
                self.flush_bench(*self.cur)
            self.prog.say("lab: interrupted")
            self.status["interrupted"] = True
            return False
        return True

    def close(self):
        """Closes the files, writes run.json, says how long the run took."""
        self.results.close()
        self.log.close()
        shutil.rmtree(os.path.join(self.out, "tmp"), ignore_errors=True)
        self.status["failed_steps"] = self.failed
        self.status["load_end"] = loadavg()
        with open(os.path.join(self.out, "run.json"), "w") as f:
            json.dump(self.status, f, indent=1)
        el = time.monotonic() - self.prog.t0
        print(f"lab: {hms(el)}; records in {self.results_path}"
              + (f"; {self.failed} step(s) FAILED" if self.failed else ""), file=sys.stderr)


def print_claims(results_path, benches):
    """The verdicts of the claims on the benchmarks this run measured."""
    verdicts = claims.check(claims.load(results_path), benches=set(benches))
    if verdicts:
        print("\n".join(claims.text_table(verdicts)), flush=True)


def main(argv):
    a = parse_args(argv)
    benches, rc = select_benches(a.bench)
    if benches is None:
        return rc
    bin_dir, out = os.path.abspath(a.bin), os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    lock = lock_out(out)  # noqa: F841  (held until the run ends)
    plans = make_plans(benches, bin_dir, a.quick, out)
    total_est = sum(float(s.get("est_s", 5)) for *_, st in plans for s in (st or []))
    if a.dry_run:
        return dry_run(plans, total_est, out)

    run = Run(a, plans, run_meta(), total_est)
    run.say_start(total_est)
    finished = run.all()
    run.close()
    if not finished:
        return 130
    print_claims(run.results_path, run.ran)
    failed = run.failed
    if not a.no_report:
        r = subprocess.run([sys.executable, os.path.join(LAB, "report.py"), "--out", out])
        if r.returncode != 0:
            print("lab: report.py failed", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
