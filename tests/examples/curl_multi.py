"""libcurl's multi socket interface on a vigil loop (examples/curl_multi.c: curl's socket
and timer callbacks on vigil's io and timer watchers, a check hook reading
curl_multi_info_read) fetches 200 URLs from examples/http_hello, 16 at a time, on the
backend VIGIL_BACKEND names. Every transfer must end exactly once, each with status 200
and http_hello's body; the server must have answered exactly 200 requests (its SIGUSR1
counters); both programs exit 0 with nothing reported by the sanitizers.

Usage: curl_multi.py CURL_MULTI_BINARY HTTP_HELLO_BINARY  (an empty first argument: the
example was not built, libcurl's development files were missing: skip, 77)."""
import subprocess, sys

from exampletest import Server, backend, verdict

COUNT, PARALLEL = 200, 16
BODY = r"Hello,\x20world!\n"  # "Hello, world!\n" as the example escapes it


def main():
    curl_bin, http_bin = sys.argv[1], sys.argv[2]
    if not curl_bin:
        print("SKIP: examples/curl_multi.c not built: no libcurl development files at configure time "
              "(Debian: libcurl4-openssl-dev, scripts/deps.sh)")
        return 77
    srv = Server(http_bin)
    ok = True
    try:
        url = f"http://127.0.0.1:{srv.port}/hello"
        p = subprocess.run([curl_bin, url, str(COUNT), str(PARALLEL)], capture_output=True, text=True, timeout=60)
        lines = p.stdout.splitlines()
        seen = {}
        for line in lines:
            parts = line.split()
            idx = int(parts[0])
            assert idx not in seen, f"transfer {idx} reported twice"
            seen[idx] = parts[1:]
        assert sorted(seen) == list(range(COUNT)), f"transfers reported: {len(seen)} of {COUNT}; missing " \
            f"{sorted(set(range(COUNT)) - set(seen))[:10]}"
        bad = {i: v for i, v in seen.items() if v != ["200", str(len("Hello, world!\n")), BODY]}
        assert not bad, f"{len(bad)} bad answers, e.g. {list(bad.items())[:3]}"
        assert p.returncode == 0, f"curl_multi exit status {p.returncode}: {p.stderr[-2000:]}"
        san = [w for w in ("LeakSanitizer", "AddressSanitizer", "runtime error") if w in p.stderr]
        assert not san, f"sanitizer reports in curl_multi: {p.stderr[-3000:]}"
        st = srv.stats()
        assert st["requests"] == COUNT, f"the server answered {st['requests']} requests, not {COUNT}"
        print(p.stderr.strip())
        print(f"{COUNT} transfers, {PARALLEL} at a time: each answered once, 200, body checked")
    except AssertionError as e:
        print(e)
        ok = False
    return verdict("curl_multi", srv.finish(ok))


if __name__ == "__main__":
    sys.exit(main())
