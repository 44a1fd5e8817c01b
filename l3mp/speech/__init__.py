"""Spoken requests: offline recognition against a grammar of the world graph, routed to tasks, updates and questions.

`audio` reads utterances, `phrasings` and `grammar` say what can be said about the current graph, `recognizer`
decodes with pocketsphinx, `dictation` transcribes freely through an OpenAI-compatible endpoint when one is
configured, `routing` decides what a transcript is, `questions` answers questions, `synth` makes test audio.
"""
