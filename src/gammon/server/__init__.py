"""``gammon serve``: the game server (accounts, challenges, matches, bots, ratings) on a real database."""
