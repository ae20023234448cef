"""Growing the gold set: `judge-intake` turns the assistant's logs into drafts, `judge-label`
serves the blind labelling page, `judge-agreement` measures two annotators' agreement, and
`judge-promote` makes the agreed drafts gold cases."""
