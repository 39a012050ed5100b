"""Shared team turns (117.6, 805) as Two-Headed Giant plays them (810), and MTR 4.2's last bullet.

``teams: Alice & Bob vs Carol & Dave`` makes a game of two teams of two. Each team takes turns
(805.4): both its players are active players, untap, draw (805.4b), may play a land (805.4c)
and act at sorcery speed. Teams, not players, have priority (117.6, 805.5): either player of the
team with priority may act (805.5a); a pass is the team's, and all teams passing in succession
resolves the top object or ends the step (805.5b). The active team attacks as a group and each
creature attacks one head of the defending team; unless its controller says otherwise, a creature
attacks the head sitting directly across (MTR 4.2) — here the teams sit so that the first named
players face each other, and the second named. Either defending player's creatures may block
creatures attacking either head (805.10d). Each team has a shared life total, starting at 30
(810.4): damage, loss and gain happen to each player, the result to the team's total (810.9). A
team loses together (810.8a, 810.8b, 704.5a).

Poison counters are shared too (810.10); a team with fifteen or more loses (810.8d). The team
that plays first skips the draw step of its first turn (103.8b). Not modelled: mulligans, and the
primary player's final say (805.2): teammates act one at a time here.
"""

from __future__ import annotations

from kb.engine.objects import ScenarioError
from kb.engine.state import GameState

TEAM_LIFE = 30  # 810.4
TEAM_POISON_TO_LOSE = 15  # 810.8d


class Teams(GameState):
    """Two-Headed Giant's teams: who is on which team, who sits across, and team labels."""

    def set_teams(self, teams: list[list[str]]) -> None:
        """Two teams of two, each team's players adjacent in the turn order (805.1)."""
        if len(teams) != 2 or any(len(t) != 2 for t in teams):
            raise ScenarioError("the engine models two teams of two players (Two-Headed Giant)")
        indexes = [[self.player(name).index for name in team] for team in teams]
        flat = [p for team in indexes for p in team]
        if sorted(flat) != list(range(len(self.players))) or len(self.players) != 4:
            raise ScenarioError("'teams:' names each of the four players once")
        for team in indexes:
            if (team[1] - team[0]) % 4 != 1:
                raise ScenarioError(
                    "a team's players sit next to each other: list them in turn order in "
                    "'players:' (805.1)"
                )
        self.teams = indexes
        self.team_of = {p: i for i, team in enumerate(indexes) for p in team}
        for pl in self.players:
            pl.life = TEAM_LIFE  # 810.4

    def set_life(self, name: str, life: int) -> None:
        """A player's life total; with teams, their team's shared total (810.4)."""
        p = self.player(name).index
        self.players[p].life = life
        self._share_life(p)

    def _share_life(self, p: int) -> str:
        """810.9: the result of a change to one player's life applies to the team's total;
        returns a note for the trace ("" without teams)."""
        if self.teams is None:
            return ""
        for q in self.teams[self.team_of[p]]:
            self.players[q].life = self.players[p].life
        return f" (the team's shared life total: {self.players[p].life}, 810.9)"

    def _share_poison(self, p: int) -> str:
        """810.10: poison counters are shared by the team; returns a note for the trace."""
        if self.teams is None:
            return ""
        for q in self.teams[self.team_of[p]]:
            self.players[q].poison = self.players[p].poison
        return f" (the team's shared poison counters: {self.players[p].poison}, 810.10)"

    def _head_across(self, p: int) -> int:
        """MTR 4.2: the head of the other team sitting directly across from player ``p``."""
        assert self.teams is not None
        team = self.teams[self.team_of[p]]
        other = self.teams[1 - self.team_of[p]]
        head = other[team.index(p)]
        if not self.players[head].in_game:
            head = other[1 - team.index(p)]
        return head

    def team_label(self, p: int) -> str:
        """``Alice and Bob's team``."""
        assert self.teams is not None
        a, b = (self.players[q].name for q in self.teams[self.team_of[p]])
        return f"{a} and {b}'s team"
