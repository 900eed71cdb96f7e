"""Domain errors whose messages are fit for a person.

Every error Lantern raises on purpose is a :class:`LanternError`: its ``str()`` is one
sentence naming the problem and the fix. The CLI prints it and exits 1; the GUI shows
it in the window. Anything else is a bug and goes to the log with its traceback.
"""


class LanternError(Exception):
    """Base class: a problem the user can fix; the message says how."""


class CourseFolderError(LanternError):
    """The course folder is missing, unreadable or holds nothing indexable."""


class BundleError(LanternError):
    """The corpus bundle is missing, corrupted, or was built for something this app cannot run."""


class ModelError(LanternError):
    """A model file is missing, has the wrong checksum, or cannot be loaded."""


class QuestionError(LanternError):
    """The question cannot be asked as given (empty, or too long for the model)."""


class UnsafeBundleError(BundleError):
    """The corpus bundle holds what the format does not allow (a path outside the course, a schema
    object the format does not define, a text over its size limit): it is refused before use."""
