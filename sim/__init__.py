"""The text household simulator of l3mp (module ``l3mp_sim``): seeded houses, people's events told in natural
language, tasks with ground truth, and the evaluation of the agent variants (``l3mp eval``)."""
