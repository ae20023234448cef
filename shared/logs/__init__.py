"""Reading Inspect's logs without loading them whole: their headers, their samples' summaries,
why a log cannot be read, and a pool of workers over many logs."""
