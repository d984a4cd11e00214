print("sensei-bench: not written yet")
