"""Future objects for async collectives and DDP communication hooks (torch.futures.Future)."""


class Future:
    """A value that becomes available later. Wraps a collective's Work, or a parent Future and a
    callback (`then`), or a plain value (set_result)."""

    def __init__(self, work=None, parent=None, callback=None):
        self._work, self._parent, self._callback = work, parent, callback
        self._done, self._value, self._error = False, None, None

    def done(self):
        if self._done:
            return True
        if self._work is not None:
            return self._work.is_completed()
        if self._parent is not None:
            return self._parent.done()
        return False

    def set_result(self, value):
        self._value, self._done = value, True

    def wait(self):
        if not self._done:
            try:
                if self._work is not None:
                    self._work.wait()
                    self._value = self._work.result()
                elif self._parent is not None:
                    self._parent.wait()
                    self._value = self._callback(self._parent)
                else:
                    raise RuntimeError(
                        "Future.wait: the future has no value and nothing to wait on"
                    )
            except Exception as err:  # kept so every waiter sees the same error
                self._error = err
            self._done = True
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        return self.wait()

    def then(self, callback):
        return Future(parent=self, callback=callback)
