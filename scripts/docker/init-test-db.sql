-- docker compose: the test suite uses its own database beside the service's.
CREATE DATABASE doorman_test;
