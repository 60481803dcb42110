"""The course around the book: exercise sheets, the instructor's solutions page, the student
edition of the site, a grader for students' reruns and a student setup that runs on Linux, macOS
and Windows.

* :mod:`rankbook.course.sheets` reads a sheet's exercises, runs and solution blocks;
* :mod:`rankbook.course.solutions_page` writes the instructor's page of every sheet's solutions;
* :mod:`rankbook.course.editions` builds the student edition of the site (no solutions);
* :mod:`rankbook.course.grader` checks a student's rerun folders against a sheet;
* :mod:`rankbook.course.student` sets up the student environment and runs a session (standard
  library only, so that any Python can start it: ``python src/rankbook/course/student.py``).

Command line: ``python -m rankbook.course grade SHEET FOLDER``.
"""

__all__: list[str] = []
