"""What "New from Template" offers: a blank workflow, role-based starters and the examples.

Starters (``resources/starters``) are small graphs of the shipped roles, with a task to
replace; examples (``resources/examples``) are complete workflows that run as they are.
Both run offline on the scripted provider until a node is switched to a real agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import WORKFLOW_SUFFIX, load_workflow
from desktop.graph.resources import examples_dir, resources_dir

BLANK = "blank"
STARTER = "starter"
EXAMPLE = "example"


def starters_dir() -> Path:
    """Folder of role-based starter workflows (``*.flow.yaml``)."""
    return resources_dir() / "starters"


@dataclass(frozen=True)
class Template:
    """One entry of the gallery."""

    key: str  # kind and file stem: "starter/plan-implement-test"
    kind: str  # BLANK, STARTER or EXAMPLE
    title: str
    description: str
    doc: WorkflowDocument
    path: Path | None = None

    @property
    def roles(self) -> list[str]:
        """The roles of its nodes, in order, each once."""
        return list(dict.fromkeys(n.role_template for n in self.doc.nodes))

    def new_document(self) -> WorkflowDocument:
        """A copy to edit: the template's file is never the new workflow's file."""
        return self.doc.model_copy(deep=True)


def _from_folder(folder: Path, kind: str) -> list[Template]:
    found = []
    for path in sorted(folder.glob(f"*{WORKFLOW_SUFFIX}")):
        try:
            doc = load_workflow(path)
        except WorkflowLoadError:
            continue  # a damaged resource is left out rather than offered broken
        found.append(Template(f"{kind}/{path.name.removesuffix(WORKFLOW_SUFFIX)}", kind,
                              doc.name, doc.description, doc, path))
    return found


def list_templates() -> list[Template]:
    """The blank workflow, then the starters, then the examples."""
    blank = Template(f"{BLANK}/blank", BLANK, "Blank workflow",
                     "An empty canvas: add nodes from the palette, or press Tab.",
                     WorkflowDocument())
    return [blank, *_from_folder(starters_dir(), STARTER),
            *_from_folder(examples_dir(), EXAMPLE)]
