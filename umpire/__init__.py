"""umpire tournament: bots play each other through the managed-match API."""
