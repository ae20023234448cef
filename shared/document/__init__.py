"""A report as a document (sections of paragraphs, tables and plots) and its renderers: the
sections and plots build the model, and only the model reaches a renderer."""
