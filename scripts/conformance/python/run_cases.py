"""Python clients against the running server: the `openai` SDK (every audio call, and a port of
speaches' audio API tests), `libretranslatepy`, and huggingface_hub's InferenceClient on the TEI
routes. One JSON line per case goes to the results file given as argv[1].

Environment: CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY, CONFORMANCE_FILTER (substring), CONFORMANCE_WORK.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import cases_clients  # noqa: E402
import cases_speaches  # noqa: E402
from common import Context, Skip  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1])
    ctx = Context.from_env()
    wanted = os.environ.get("CONFORMANCE_FILTER", "")
    registry = cases_speaches.cases(ctx) + cases_clients.cases(ctx)
    with out.open("w") as sink:
        for suite, name, fn in registry:
            if wanted and wanted not in f"{suite}/{name}":
                continue
            start = time.perf_counter()
            row = {"suite": suite, "name": name, "ok": True}
            try:
                fn()
            except Skip as skip:
                row.update(skipped=True, detail=str(skip))
            except Exception as error:  # noqa: BLE001 - every failure is a row in the table
                row.update(ok=False, detail=f"{type(error).__name__}: {error}")
                if os.environ.get("CONFORMANCE_VERBOSE"):
                    traceback.print_exc()
            row["ms"] = round((time.perf_counter() - start) * 1000)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            mark = "skip" if row.get("skipped") else ("ok" if row["ok"] else "FAIL")
            print(f"  [{mark}] {suite}/{name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
