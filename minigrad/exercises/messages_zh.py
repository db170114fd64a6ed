"""Chinese (简体中文) messages for the exercise checkers, keyed by the English text as written in
the checkers' source: an f-string's ``{placeholders}`` stay, with the same expression inside the
braces, and are filled with the values the English message was printed with.

tests/test_translations.py fails, naming the message, when a checker says something that has no
entry here. Terms follow notebooks/zh/GLOSSARY.md.
"""

MESSAGES: dict[str, str] = {
    # The verdict lines printed by _feedback.exercise
    "— correct.": "— 正确。",
    "— not yet.": "— 还不对。",
    "— not written yet.": "— 还没有写。",
    "— your code raised an error.": "— 你的代码抛出了异常。",
    "What is wrong:": "问题：",
    "Hint:": "提示：",
    "Your code raised NotImplementedError:": "你的代码抛出了 NotImplementedError：",
    "Replace the stub with your answer and run this check again.": "把占位代码换成你的答案，然后重新运行这个检查。",
    # A doctest's example checker (minigrad/exercises/_feedback.py)
    "Your turn 0: the number two": "动手练习 0：数字二",
}
