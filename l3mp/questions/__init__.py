"""Questions about the home answered from the graph and its history, with the facts and records that say so."""

from l3mp.questions.answer import ANSWER_FORMAT, ANSWERED, DECLINED, Answer, Step
from l3mp.questions.answerer import QuestionAnswerer
from l3mp.questions.loop import Caps
from l3mp.questions.memory import Memory, Selection
from l3mp.questions.wire import QUESTION_KIND, question_fields

__all__ = [
           "ANSWERED",
           "ANSWER_FORMAT",
           "DECLINED",
           "QUESTION_KIND",
           "Answer",
           "Caps",
           "Memory",
           "QuestionAnswerer",
           "Selection",
           "Step",
           "question_fields",
]
