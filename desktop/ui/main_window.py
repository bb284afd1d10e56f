"""Main window: the loaded workflow's nodes and edges, with validation in the status bar."""

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import read_workflow
from desktop.graph.resources import examples_dir

try:  # validation may be unavailable in a partial install; loading still works
    from desktop.graph.validate import validate
except ImportError:  # pragma: no cover
    validate = None

APP_TITLE = "Agent Canvas"
FILE_FILTER = "Workflows (*.flow.yaml *.yaml *.yml);;All files (*)"


class MainWindow(QMainWindow):
    """Shows one workflow: its name, nodes (label, role, provider) and edges."""

    def __init__(self) -> None:
        super().__init__()
        self.document: WorkflowDocument | None = None
        self.path: Path | None = None
        self.problems: list = []
        self.error_box: QMessageBox | None = None
        self.setWindowTitle(APP_TITLE)
        self.resize(900, 600)

        self.name_label = QLabel("No workflow open. Use File > Open.")
        self.name_label.setWordWrap(True)
        self.nodes_view = QTreeWidget()
        self.nodes_view.setHeaderLabels(["Node", "Id", "Role", "Provider"])
        self.nodes_view.setRootIsDecorated(False)
        self.edges_view = QTreeWidget()
        self.edges_view.setHeaderLabels(["Edge", "Type", "Label"])
        self.edges_view.setRootIsDecorated(False)

        splitter = QSplitter()
        splitter.addWidget(self.nodes_view)
        splitter.addWidget(self.edges_view)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.name_label)
        layout.addWidget(splitter, 1)
        self.setCentralWidget(central)
        self._build_menu()
        self.statusBar().showMessage("Ready")

    def _build_menu(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = QAction("&Open…", self)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_action.triggered.connect(self.choose_file)
        file_menu.addAction(self.open_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

    def choose_file(self) -> None:
        """Ask for a workflow file and load it."""
        start = str(self.path.parent if self.path else examples_dir())
        path, _ = QFileDialog.getOpenFileName(self, "Open workflow", start, FILE_FILTER)
        if path:
            self.load_file(path)

    def load_file(self, path: str | Path) -> bool:
        """Load and show a workflow; on failure show why and keep the current one."""
        try:
            doc, lines = read_workflow(path)
        except WorkflowLoadError as exc:
            self.show_error(f"Cannot open {Path(path).name}", str(exc))
            return False
        except Exception as exc:  # never let a bad file take the window down
            self.show_error(f"Cannot open {Path(path).name}", f"{type(exc).__name__}: {exc}")
            return False
        self.path = Path(path)
        self.show_document(doc, lines)
        return True

    def show_document(self, doc: WorkflowDocument, lines: object = None) -> None:
        """Fill the lists from ``doc`` and report its validation problems."""
        self.document = doc
        self.setWindowTitle(f"{doc.name} — {APP_TITLE}")
        text = f"<b>{_escape(doc.name)}</b>"
        if doc.description:
            text += f"<br>{_escape(doc.description)}"
        self.name_label.setText(text)

        self.nodes_view.clear()
        for node in doc.nodes:
            QTreeWidgetItem(self.nodes_view,
                            [node.label or node.id, node.id, node.role_template,
                             str(node.provider)])
        self.edges_view.clear()
        for edge in doc.edges:
            QTreeWidgetItem(self.edges_view,
                            [f"{edge.from_} -> {edge.to}", str(edge.type), edge.label or ""])
        for view in (self.nodes_view, self.edges_view):
            for column in range(view.columnCount()):
                view.resizeColumnToContents(column)
        self._report_problems(doc, lines)

    def _report_problems(self, doc: WorkflowDocument, lines: object) -> None:
        self.problems = []
        if validate is not None:
            try:
                self.problems = validate(doc, str(self.path) if self.path else None, lines)
            except Exception as exc:  # a validator bug must not hide the document
                self.statusBar().showMessage(f"Validation failed: {exc}")
                return
        if not self.problems:
            self.statusBar().showMessage(
                f"{len(doc.nodes)} nodes, {len(doc.edges)} edges — no problems")
            self.statusBar().setToolTip("")
            return
        errors = sum(1 for p in self.problems if getattr(p, "is_error", True))
        warnings = len(self.problems) - errors
        summary = f"{errors} error(s), {warnings} warning(s): {self.problems[0]}"
        self.statusBar().showMessage(summary)
        self.statusBar().setToolTip("\n".join(str(p) for p in self.problems))

    def show_error(self, title: str, text: str) -> None:
        """A non-blocking message box (the event loop keeps running)."""
        self.error_box = QMessageBox(QMessageBox.Icon.Critical, title, text,
                                     QMessageBox.StandardButton.Ok, self)
        self.error_box.open()
        self.statusBar().showMessage(title)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
