"""The run's description, torch-free: the environment file's schema (cluster pools, storage, the
job), hardware per instance type, the models' shapes, the resolved parallel layout and the names
processes and rules share. It imports nothing else in the repository; everything else reads it."""
