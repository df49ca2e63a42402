"""The embedded engine behind its real SGLang-API app (payload.rollout.server.build_app), plus one
test-only route, GET /debug/output_lengths: the output tokens each live sequence holds. A test
reads it after /pause_generation in_place (which returns with the batch held between steps) to
know where the tokens of the old weights end, before publishing new ones.

    python engine_with_probe.py MODEL_DIR PORT

Its own process: the trainer's publisher and the engine each join the weight-update group
under the same name, which one process cannot register twice.
"""

import sys

import uvicorn

from payload.rollout.engine import Engine
from payload.rollout.server import build_app


def main() -> None:
    model, port = sys.argv[1], int(sys.argv[2])
    engine = Engine.Config(model_path=model).build()
    app = build_app(engine)

    @app.get("/debug/output_lengths")
    async def output_lengths():
        with engine._state:
            return sorted(len(s.output_ids) for s in engine._live)

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
