"""The accounts API: register, log in and out, and players' profiles."""
