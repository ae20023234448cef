"""Parse the judge's reply, compare it with the gold verdict, aggregate; and record it alone
where there is no gold (the production task)."""
