"""Parse the judge's reply, compare it with the gold verdict, aggregate."""
