"""``agent-canvas schema --out DIR``: write the JSON Schema of every stored or sent shape."""

import argparse
import sys
from pathlib import Path

from desktop.cli.output_arg import given_path
from desktop.contract.schema import SUFFIX, SchemaSource, build_schemas, contract_sources
from desktop.disk.atomic import atomic_write_json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``schema`` subcommand."""
    p = sub.add_parser(
        "schema",
        help="write JSON Schema files for runs, nodes, edges, events, run-info, workflows, "
             "evaluation suites and artifacts",
    )
    p.add_argument("--out", required=True, metavar="DIR", type=given_path,
                   help="folder to write *.schema.json")
    p.set_defaults(handler=write_schemas_command)


def all_sources() -> dict[str, SchemaSource]:
    """Contract shapes, the workflow document, evaluation suites and artifacts."""
    from pydantic import TypeAdapter

    from desktop.contract.artifacts import (
        AssetsManifest,
        CaseArtifact,
        FailureMeta,
        RunArtifact,
    )
    from desktop.eval.suite import Suite
    from desktop.graph.document import WorkflowDocument

    return contract_sources() | {
        "workflow-document" + SUFFIX: WorkflowDocument,
        "eval-suite" + SUFFIX: Suite,
        "artifact.run" + SUFFIX: RunArtifact,
        "artifact.case" + SUFFIX: TypeAdapter(CaseArtifact),
        "artifact.failure-meta" + SUFFIX: FailureMeta,
        "artifact.assets-manifest" + SUFFIX: AssetsManifest,
    }


def write_schemas(out: Path) -> list[Path]:
    """Write one schema file per shape into ``out``; return the paths written."""
    written = []
    for name, schema in build_schemas(all_sources()).items():
        path = out / name
        atomic_write_json(path, schema)
        written.append(path)
    return written


def write_schemas_command(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"agent-canvas schema: {out} exists and is not a folder; pick another --out",
              file=sys.stderr)
        return 2
    try:
        written = write_schemas(out)
    except OSError as exc:
        print(f"agent-canvas schema: cannot write to {out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    print(f"wrote {len(written)} schema files to {out}")
    return 0
