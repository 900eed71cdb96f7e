"""Read a course folder and cut its guides into chunks."""
