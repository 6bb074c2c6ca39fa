"""Everything that writes: pure planners make a Plan, the writer applies it as one git commit
(lock, journal, atomic files), and undo reverses one."""
