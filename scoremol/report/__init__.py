"""The HTML report of predictions: one self-contained, offline page (see :mod:`.html`)."""

from scoremol.report.html import Neighbour, ReportSummary, ReportTask, select_rows, write_report

__all__ = ["Neighbour", "ReportSummary", "ReportTask", "select_rows", "write_report"]
