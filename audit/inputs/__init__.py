"""What the audit's verbs read: the production task's logs (`judged`), the labels of a sample
(`labelled`), the judge's figures at the pick in decision.json (`picked`), and the commands'
options with the writing of a report's files (`options`)."""
