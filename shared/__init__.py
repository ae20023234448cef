"""What the comparison and the audit both use, below them: the document model of a report and
its renderers (Markdown, HTML, a plot's PNG), and the readers of Inspect's logs (headers,
sample summaries, a log that cannot be read), each reading a log without loading it whole."""
